package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What one rank on one GPU proves about ending a communicator while its work is still queued: an abort during a
 * pending graph launch, and a synchronize that outlives {@code collectives.device.syncTimeoutSeconds} and aborts.
 * The queue is real work (launches of a graph of large allreduces, seconds of them), so nothing depends on
 * how the library treats a peer that never comes. Run with {@code -Dcollectives.device.syncTimeoutSeconds=2}.
 * Each test prints what it measured. On one rank the queued work is copies that run to their end: NCCL 2.28.3's
 * {@code ncclCommAbort} returns only once they have (bench/results/gpu-results.md), so the tests bound what must
 * happen, not how soon the abort returns; a peer that never comes is the two-process case.
 */
@Tag("gpu")
class DeviceAbortGpuTest {
    /** 256 Mi floats: 1 GiB per buffer. */
    private static final long COUNT = 1L << 28;
    /** Long graphs, so that a few hundred launches hold the queued work: more would block the launching thread. */
    private static final int OPS_PER_GRAPH = 64;
    /** How long the queued work would take to run to its end. */
    private static final Duration QUEUED = Duration.ofSeconds(12);

    private static final int MAX_LAUNCHES = 1000;

    @Test
    void abortDuringAPendingGraphLaunchEndsItAndEverythingCloses() {
        withQueuedWork((comm, stream, queued) -> {
            assertTrue(pending(comm, stream), "the queued launches had finished before the abort");
            long abortStart = System.nanoTime();
            comm.abort();
            long abortMillis = millisSince(abortStart);
            String synchronize = synchronizeAfterAbort(stream);
            return "abort during a pending graph launch: " + queued + "; abort returned after " + abortMillis
                    + " ms; synchronize then " + synchronize;
        });
    }

    @Test
    void aSynchronizeOutlivingItsTimeoutAbortsTheCommunicatorAndThrows() {
        long timeoutSeconds = Long.getLong("collectives.device.syncTimeoutSeconds", 300L);
        assertEquals(2, timeoutSeconds, "run with -Dcollectives.device.syncTimeoutSeconds=2");
        withQueuedWork((comm, stream, queued) -> {
            String polls = timePolls(comm, stream);
            long start = System.nanoTime();
            CollectivesException e = assertThrows(CollectivesException.class, stream::synchronize);
            long waited = millisSince(start);
            assertEquals(Result.REMOTE_ERROR, e.result(), e.getMessage());
            assertTrue(
                    e.getMessage().contains("no completion within 2 s; the communicator was aborted"), e.getMessage());
            return "sync timeout: " + queued + "; " + polls + "; synchronize threw after " + waited + " ms: "
                    + e.getMessage();
        });
    }

    /** What a test does to a communicator of one rank whose stream has seconds of work queued; says what it saw. */
    @FunctionalInterface
    private interface WhileQueued {
        String run(Communicator comm, Stream stream, String queued);
    }

    /**
     * Runs {@code body} on one rank with {@link #QUEUED} of graph launches queued; then checks that the
     * communicator refuses new work and that the stream drains, and closes everything (graphs before buffers),
     * all within 90 s. Prints what the body saw and how long the stream took to drain after it.
     */
    private static void withQueuedWork(WhileQueued body) {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            try (LocalCluster cluster = GpuFixture.backend().local(1)) {
                cluster.run(GpuFixture::warmUp);
                cluster.run(ctx -> {
                    Communicator comm = ctx.comm();
                    Stream stream = ctx.stream();
                    try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
                            DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
                            Graph graph = capture(comm, stream, send, recv);
                            GraphExec exec = graph.instantiate()) {
                        String seen = body.run(comm, stream, queue(exec, stream));
                        assertThrows(
                                CollectivesException.class,
                                () -> comm.allReduce(send, recv, 8, DataType.FLOAT32, ReduceOp.SUM, stream));
                        System.out.println(seen + "; the stream drained " + awaitDrained(comm, stream) + " after that");
                    }
                });
            }
        });
    }

    /**
     * A synchronize right after the abort: it fails, naming the abort, while work is still queued; it returns
     * if the queued work has finished (the abort may wait for it). Says which.
     */
    private static String synchronizeAfterAbort(Stream stream) {
        try {
            stream.synchronize();
            return "returned (the queued work had finished)";
        } catch (CollectivesException e) {
            assertTrue(e.getMessage().contains("communicator is aborted"), e.getMessage());
            return "threw: " + e.getMessage();
        }
    }

    /** One graph of {@link #OPS_PER_GRAPH} large allreduces (on one rank: copies of 256 MiB). */
    private static Graph capture(Communicator comm, Stream stream, DeviceBuffer send, DeviceBuffer recv) {
        stream.beginCapture();
        for (int i = 0; i < OPS_PER_GRAPH; i++) {
            comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
        }
        return stream.endCapture();
    }

    /** Times a few launches, then queues about {@link #QUEUED} of them without waiting; says what it queued. */
    private static String queue(GraphExec exec, Stream stream) {
        long start = System.nanoTime();
        for (int i = 0; i < 4; i++) {
            exec.launch(stream);
        }
        stream.synchronize();
        double millisPerLaunch = Math.max(0.01, millisSince(start) / 4.0);
        int launches = (int) Math.min(MAX_LAUNCHES, QUEUED.toMillis() / millisPerLaunch);
        long queueing = System.nanoTime();
        for (int i = 0; i < launches; i++) {
            exec.launch(stream);
        }
        return launches + " launches of " + OPS_PER_GRAPH + " x allreduce of " + (COUNT * 4 >> 20) + " MiB ("
                + String.format("%.1f", millisPerLaunch) + " ms each) queued in " + millisSince(queueing) + " ms";
    }

    /** How long each of the two calls that synchronize polls takes while the work is queued. */
    private static String timePolls(Communicator comm, Stream stream) {
        NativeLibrary n = ((DeviceCommunicator) comm).library();
        long start = System.nanoTime();
        int query = n.api.streamQuery(n.lib, ((DeviceStream) stream).handle);
        long queryMillis = millisSince(start);
        start = System.nanoTime();
        int[] error = new int[1];
        int rc = n.api.commAsyncError(
                n.lib, ((DeviceCommunicator) comm).nativeComm().handle(), error);
        String polls = "StreamQuery took " + queryMillis + " ms (" + query + "), CommGetAsyncError "
                + millisSince(start) + " ms (" + rc + ", error " + error[0] + ")";
        System.out.println(polls);
        return polls;
    }

    private static boolean pending(Communicator comm, Stream stream) {
        NativeLibrary n = ((DeviceCommunicator) comm).library();
        return n.api.streamQuery(n.lib, ((DeviceStream) stream).handle) == NativeLibrary.NOT_READY;
    }

    /**
     * Waits until the stream has nothing left, so that its buffers may be freed: the runtime's blocking stream
     * synchronize, as {@link Stream#synchronize} refuses an aborted communicator's stream; withQueuedWork's guard
     * bounds it. Says how long it took and the runtime's result.
     */
    private static String awaitDrained(Communicator comm, Stream stream) {
        NativeLibrary n = ((DeviceCommunicator) comm).library();
        long start = System.nanoTime();
        int rc = n.api.streamSynchronize(n.lib, ((DeviceStream) stream).handle);
        return millisSince(start) + " ms (" + rc + ")";
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
