package dev.collectives.runtime.bootstrap;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Stream;

/**
 * One process of a job whose ranks step allreduces until one of them dies: the rank named by the first argument
 * halts its JVM (as {@code kill -9} would) right after queueing its step number given by the second argument. The
 * survivors print how long after their last completed step the failure reached them, what it said, and how long
 * closing everything then took.
 */
public final class KillMidStepProcess {
    private static final long COUNT = 1 << 20;

    private KillMidStepProcess() {
    }

    public static void main(String[] args) {
        int victim = Integer.parseInt(args[0]);
        int fatalStep = Integer.parseInt(args[1]);
        Bootstrap bootstrap = Bootstrap.fromEnvironment();
        long closeStart;
        try (JoinedRank me = Backends.fromEnvironment().join(bootstrap)) {
            System.out.println("JOINED " + me.comm());
            Communicator comm = me.comm();
            Stream stream = me.stream();
            long lastGood = System.nanoTime();
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
                 DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT)) {
                for (int step = 0; ; step++) {
                    comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
                    if (me.rank() == victim && step == fatalStep) {
                        System.out.println("HALTING at step " + step);
                        System.out.flush();
                        Runtime.getRuntime().halt(137);
                    }
                    stream.synchronize();
                    lastGood = System.nanoTime();
                    if (step == 0) {
                        System.out.println("STEPPING");
                    }
                }
            } catch (CollectivesException e) {
                System.out.println("RAISED after " + (System.nanoTime() - lastGood) / 1_000_000 + " ms: "
                        + e.getMessage());
            }
            closeStart = System.nanoTime();
        }
        System.out.println("CLOSED in " + (System.nanoTime() - closeStart) / 1_000_000 + " ms");
    }
}
