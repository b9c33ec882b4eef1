package dev.collectives.runtime.bootstrap;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.Fingerprint;
import java.util.ArrayList;
import java.util.List;

/**
 * The seed's three examples (graph registration, local registration, one registered block with views), written
 * against a {@link JoinedRank} the way a process of a multi-process job would, each after a fingerprint check
 * across the ranks. Returns one line per example; throws if a sum is wrong.
 */
final class SeedJob {
    private static final int COUNT = 1024;

    private SeedJob() {}

    static List<String> run(JoinedRank me) {
        List<String> report = new ArrayList<>();
        report.add(graphRegistration(me));
        report.add(localRegistration(me));
        report.add(registeredBlock(me));
        return report;
    }

    /** Seed example 1: two allreduces captured into one graph, launched once. */
    private static String graphRegistration(JoinedRank me) {
        Communicator comm = me.comm();
        Stream stream = me.stream();
        check(me, "graph", "allReduce send+0 -> recv+0; allReduce send+1024 -> recv+2048");
        try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4 * COUNT);
                DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4 * COUNT)) {
            send.copyFromHost(values(me.rank(), 4 * COUNT));
            stream.beginCapture();
            comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
            comm.allReduce(send.at(COUNT), recv.at(2 * COUNT), COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
            try (Graph graph = stream.endCapture();
                    GraphExec exec = graph.instantiate()) {
                exec.launch(stream);
                stream.synchronize();
            }
            float[] out = new float[4 * COUNT];
            recv.copyToHost(out);
            verify(me, "graph", out, 0, 0);
            verify(me, "graph", out, 2 * COUNT, COUNT);
        }
        return "seed 1 graph registration: ok";
    }

    /** Seed example 2: both buffers registered once with CommRegister, then the same two allreduces. */
    private static String localRegistration(JoinedRank me) {
        Communicator comm = me.comm();
        Stream stream = me.stream();
        check(me, "local", "register send, recv; allReduce send+0 -> recv+0; allReduce send+1024 -> recv+2048");
        try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4 * COUNT);
                DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4 * COUNT);
                RegistrationHandle sendHandle = comm.register(send);
                RegistrationHandle recvHandle = comm.register(recv)) {
            requireRegistered(me, sendHandle, recvHandle);
            send.copyFromHost(values(me.rank(), 4 * COUNT));
            comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
            comm.allReduce(send.at(COUNT), recv.at(2 * COUNT), COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
            stream.synchronize();
            float[] out = new float[4 * COUNT];
            recv.copyToHost(out);
            verify(me, "local", out, 0, 0);
            verify(me, "local", out, 2 * COUNT, COUNT);
        }
        return "seed 2 local registration: ok";
    }

    /** Seed example 3: one block allocated and registered once; send and recv are views at fixed offsets. */
    private static String registeredBlock(JoinedRank me) {
        Communicator comm = me.comm();
        Stream stream = me.stream();
        int recvOffsetBytes = 1 << 20;
        check(me, "block", "register block of 2 MiB; allReduce view@0 -> view@" + recvOffsetBytes);
        try (DeviceBuffer block = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, 2 << 20);
                RegistrationHandle handle = comm.register(block)) {
            requireRegistered(me, handle);
            DeviceBuffer send = block.view(0, DataType.FLOAT32, COUNT);
            DeviceBuffer recv = block.view(recvOffsetBytes, DataType.FLOAT32, COUNT);
            send.copyFromHost(values(me.rank(), COUNT));
            comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
            stream.synchronize();
            float[] out = new float[COUNT];
            recv.copyToHost(out);
            verify(me, "block", out, 0, 0);
        }
        return "seed 3 registered block with views: ok";
    }

    private static void requireRegistered(JoinedRank me, RegistrationHandle... handles) {
        for (RegistrationHandle handle : handles) {
            if (!handle.isOpen()) {
                throw new AssertionError("rank " + me.rank() + ": registration of " + handle.buffer() + " is closed");
            }
        }
    }

    /** Every rank binds the same pipeline: R14 would fail all of them otherwise. */
    private static void check(JoinedRank me, String pipeline, String ops) {
        Fingerprint.builder("seed " + pipeline)
                .add("ops", ops)
                .add(Rule.R1_MIXED, "registration", pipeline)
                .build()
                .exchange(me.comm(), me.stream());
    }

    /** Rank r's element i: r + 1 + i % 7, so the sum over n ranks is n(n+1)/2 + n(i % 7). */
    private static float[] values(int rank, int count) {
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = rank + 1 + i % 7;
        }
        return v;
    }

    private static void verify(JoinedRank me, String example, float[] out, int recvAt, int sendAt) {
        int n = me.size();
        for (int j = 0; j < COUNT; j++) {
            float expected = n * (n + 1) / 2f + n * ((sendAt + j) % 7);
            if (out[recvAt + j] != expected) {
                throw new AssertionError("rank " + me.rank() + ", " + example + ": recv[" + (recvAt + j) + "] is "
                        + out[recvAt + j] + ", expected " + expected);
            }
        }
    }
}
