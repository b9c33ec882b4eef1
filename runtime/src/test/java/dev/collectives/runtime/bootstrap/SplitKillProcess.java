package dev.collectives.runtime.bootstrap;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Stream;

/**
 * One process of a job of 3 ranks split into rank 0 alone (color 0) and ranks 1 and 2 (color 1), in which rank 2
 * halts its JVM (as {@code kill -9} would) once split. Rank 1 allreduces on its child until the failure reaches it,
 * and rank 0 waits until its job's communicator is aborted; each prints the failure; rank 0 then allreduces on its
 * child, which does not hold rank 2, and prints the sum.
 */
public final class SplitKillProcess {
    private static final int VICTIM = 2;

    private SplitKillProcess() {}

    public static void main(String[] args) {
        try (JoinedRank me = Backends.fromEnvironment().join(Bootstrap.fromEnvironment())) {
            int rank = me.rank();
            try (Communicator child = me.comm().split(rank == 0 ? 0 : 1, rank).orElseThrow()) {
                System.out.println("SPLIT " + child);
                if (rank == VICTIM) {
                    System.out.println("HALTING");
                    System.out.flush();
                    Runtime.getRuntime().halt(137);
                }
                try {
                    while (true) {
                        if (rank == 0) {
                            requireOpen(me.comm());
                        } else {
                            sum(child, me.stream(), rank);
                        }
                    }
                } catch (CollectivesException e) {
                    System.out.println("RAISED " + e.getMessage());
                }
                if (rank == 0) {
                    System.out.println("ALONE SUM " + sum(child, me.stream(), rank));
                }
            }
        }
        System.out.println("CLOSED");
    }

    /**
     * Throws once {@code comm} is aborted: an allocation it refuses then. No kernel of it is in flight when the watch
     * aborts it, so that the abort leaves this process's device context usable for the child.
     */
    private static void requireOpen(Communicator comm) {
        comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1).close();
        Thread.onSpinWait();
    }

    /** The sum over {@code comm} of each rank's rank plus one. */
    private static float sum(Communicator comm, Stream stream, int rank) {
        try (DeviceBuffer one = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1)) {
            one.copyFromHost(new float[] {rank + 1});
            comm.allReduce(one, one, 1, DataType.FLOAT32, ReduceOp.SUM, stream);
            stream.synchronize();
            float[] sum = new float[1];
            one.copyToHost(sum);
            return sum[0];
        }
    }
}
