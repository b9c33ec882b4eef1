package dev.collectives.runtime.bootstrap;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Event;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Stream;
import java.time.Duration;

/**
 * One process of a job whose ranks step allreduces until one of them dies: the rank named by the first argument
 * halts its JVM (as {@code kill -9} would) right after queueing its step number given by the second argument. With
 * a third argument {@code graph}, each step replays a captured graph of the allreduce and waits on an event with
 * {@code Event.await} (where a survivor once hung inside the native abort). The survivors print how long after their
 * last completed step the failure reached them and what it said; with a fourth argument {@code shrink}, once their
 * buffers and graph are closed, they shrink the dead rank away and print the child and an allreduce of their ranks
 * plus one on it; then how long closing everything took.
 */
public final class KillMidStepProcess {
    private static final long COUNT = 1 << 20;
    private static final Duration EVENT_WAIT = Duration.ofSeconds(20);

    private KillMidStepProcess() {}

    public static void main(String[] args) {
        int victim = Integer.parseInt(args[0]);
        int fatalStep = Integer.parseInt(args[1]);
        boolean graph = args.length > 2 && args[2].equals("graph");
        boolean shrink = args.length > 3 && args[3].equals("shrink");
        Bootstrap bootstrap = Bootstrap.fromEnvironment();
        long closeStart;
        try (JoinedRank me = Backends.fromEnvironment().join(bootstrap)) {
            System.out.println("JOINED " + me.comm());
            Communicator comm = me.comm();
            Stream stream = me.stream();
            long lastGood = System.nanoTime();
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
                    DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
                    GraphExec replay = graph ? capture(comm, stream, send, recv) : null) {
                for (int step = 0; ; step++) {
                    if (replay != null) {
                        replay.launch(stream);
                    } else {
                        comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
                    }
                    if (me.rank() == victim && step == fatalStep) {
                        System.out.println("HALTING at step " + step);
                        System.out.flush();
                        Runtime.getRuntime().halt(137);
                    }
                    if (replay != null) {
                        try (Event done = stream.record()) {
                            done.await(EVENT_WAIT);
                        }
                    } else {
                        stream.synchronize();
                    }
                    lastGood = System.nanoTime();
                    if (step == 0) {
                        System.out.println("STEPPING");
                    }
                }
            } catch (CollectivesException e) {
                System.out.println(
                        "RAISED after " + (System.nanoTime() - lastGood) / 1_000_000 + " ms: " + e.getMessage());
            }
            if (shrink) {
                shrinkAway(comm, stream, me.rank(), victim);
            }
            closeStart = System.nanoTime();
        }
        System.out.println("CLOSED in " + (System.nanoTime() - closeStart) / 1_000_000 + " ms");
    }

    /** Prints the child without {@code victim} and the sum over it of each survivor's rank plus one. */
    private static void shrinkAway(Communicator comm, Stream stream, int rank, int victim) {
        try (Communicator survivors = comm.shrink(victim);
                DeviceBuffer one = survivors.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1)) {
            one.copyFromHost(new float[] {rank + 1});
            survivors.allReduce(one, one, 1, DataType.FLOAT32, ReduceOp.SUM, stream);
            stream.synchronize();
            float[] sum = new float[1];
            one.copyToHost(sum);
            System.out.println("SHRUNK " + survivors + " SUM " + sum[0]);
        }
    }

    /** The allreduce captured once, after an eager one has connected the ranks; its graph closes with the exec. */
    private static GraphExec capture(Communicator comm, Stream stream, DeviceBuffer send, DeviceBuffer recv) {
        comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
        stream.synchronize();
        stream.beginCapture();
        comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
        try (Graph graph = stream.endCapture()) {
            return graph.instantiate();
        }
    }
}
