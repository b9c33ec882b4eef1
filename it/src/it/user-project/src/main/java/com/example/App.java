package com.example;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;

/** Runs {@link Gradients} on every rank of a local cluster and returns what each rank's block holds. */
public final class App {
    private App() {
    }

    /** Rank r passes gradients r + i; returns each rank's block after one step. */
    public static float[][] run(Backend backend, int ranks) {
        float[][] blocks = new float[ranks][2048];
        try (LocalCluster cluster = backend.local(ranks)) {
            cluster.run(rank -> {
                float[] grads = new float[(int) Gradients.COUNT];
                for (int i = 0; i < grads.length; i++) {
                    grads[i] = rank.rank() + i;
                }
                try (DeviceBuffer mine = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 512)) {
                    DeviceBuffer input = mine.slice(128, Gradients.COUNT);
                    input.copyFromHost(grads);
                    try (CollectiveGradients pipeline = CollectiveGradients.bind(rank.comm(), rank.stream(), input)) {
                        pipeline.step();
                        rank.stream().synchronize();
                        pipeline.block().copyToHost(blocks[rank.rank()]);
                    }
                }
            });
        }
        return blocks;
    }

    public static void main(String[] args) {
        float[][] blocks = run(Backends.fromEnvironment(), 4);
        System.out.println("rank 0, element 1024 + 256: " + blocks[0][1024 + 256]);
    }
}
