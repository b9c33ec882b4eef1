package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Event;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Streams owned elsewhere ({@code wrapStream}, {@code handle()}) and events: done, await, futures, ordering. */
class EventTest {
    private static final Duration LONG = Duration.ofSeconds(20);

    /** A framework stream held up by a kernel until {@code gate} opens. */
    private static SimForeignStream heldStream(CountDownLatch gate) {
        SimForeignStream stream = SimForeignStream.create(0);
        stream.launch(() -> awaitUninterruptibly(gate));
        return stream;
    }

    private static void awaitUninterruptibly(CountDownLatch gate) {
        try {
            assertTrue(gate.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void anEventIsDoneOnceTheWorkBeforeItFinishedAndAwaitNamesItsTimeout() {
        CountDownLatch gate = new CountDownLatch(1);
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignStream framework = heldStream(gate)) {
            Stream stream = cluster.communicator(0).wrapStream(framework.handle());
            Event event = stream.record();
            assertFalse(event.isDone());
            CollectivesException timeout =
                    assertThrows(CollectivesException.class, () -> event.await(Duration.ofMillis(50)));
            assertEquals(Result.IN_PROGRESS, timeout.result());
            assertContains(timeout.getMessage(), "await(PT0.05S)", "not done within 50 ms");
            gate.countDown();
            event.await(LONG);
            assertTrue(event.isDone());
            event.close();
            assertTrue(event.isDone(), "a done event stays done after close()");
        }
    }

    @Test
    void whenDoneCompletesOnceAndIsTheSameFuture() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignStream framework = heldStream(gate)) {
            Stream stream = cluster.communicator(0).wrapStream(framework.handle());
            Event event = stream.record();
            CompletableFuture<Void> done = event.whenDone();
            assertSame(done, event.whenDone());
            assertThrows(java.util.concurrent.TimeoutException.class, () -> done.get(50, TimeUnit.MILLISECONDS));
            gate.countDown();
            done.get(20, TimeUnit.SECONDS);
            assertTrue(event.isDone());
        }
    }

    @Test
    void manyFuturesAreServedByOnePollerThread() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignStream framework = heldStream(gate)) {
            Stream stream = cluster.communicator(0).wrapStream(framework.handle());
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                futures.add(stream.record().whenDone());
            }
            gate.countDown();
            CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                    .get(20, TimeUnit.SECONDS);
            long pollers = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("collectives-event-poller"))
                    .count();
            assertEquals(1, pollers);
        }
    }

    @Test
    void anEventsFutureFailsWithTheAbortOfItsCommunicator() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build();
                SimForeignStream framework = heldStream(gate)) {
            SimCommunicator comm = cluster.communicator(0);
            Stream own = comm.createStream();
            CompletableFuture<Void> pending =
                    comm.wrapStream(framework.handle()).record().whenDone();
            comm.abort();
            gate.countDown();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> pending.get(20, TimeUnit.SECONDS));
            CollectivesException cause = assertInstanceOf(CollectivesException.class, failed.getCause());
            assertContains(cause.getMessage(), "rank 0:", "aborted");
            Event later = own.record();
            assertThrows(ExecutionException.class, () -> later.whenDone().get(20, TimeUnit.SECONDS));
            assertThrows(CollectivesException.class, later::isDone);
        }
    }

    @Test
    void waitForOrdersOneStreamAfterAnother() {
        CountDownLatch gate = new CountDownLatch(1);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignStream first = heldStream(gate);
                SimForeignStream second = SimForeignStream.create(0)) {
            SimCommunicator comm = cluster.communicator(0);
            first.launch(() -> order.add("first"));
            Event event = comm.wrapStream(first.handle()).record();
            comm.wrapStream(second.handle()).waitFor(event);
            second.launch(() -> order.add("second"));
            second.launch(() -> assertTrue(event.isDone()));
            gate.countDown();
            second.synchronize();
            assertEquals(List.of("first", "second"), order);
        }
    }

    @Test
    void aWrappedStreamRunsCollectivesAndGraphsAndCloseLeavesItAlone() {
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignStream framework = SimForeignStream.create(0)) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.wrapStream(framework.handle());
            assertEquals(framework.handle(), stream.handle());
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 8)) {
                buffer.copyFromHost(new float[] {1, 2, 3, 4, 0, 0, 0, 0});
                stream.beginCapture();
                comm.allReduce(buffer.slice(0, 4), buffer.slice(4, 4), 4, DataType.FLOAT32, ReduceOp.SUM, stream);
                try (Graph graph = stream.endCapture();
                        GraphExec exec = graph.instantiate()) {
                    exec.launch(stream);
                    stream.record().await(LONG);
                }
                float[] back = new float[8];
                buffer.copyToHost(back);
                assertArrayEquals(new float[] {1, 2, 3, 4, 1, 2, 3, 4}, back);
            }
            stream.close();
            framework.launch(() -> {});
            framework.synchronize(); // still alive
            Stream own = comm.createStream();
            assertEquals(own.handle(), comm.wrapStream(own.handle()).handle(), "a framework may use ours too");
        }
    }

    @Test
    void eventsAreNotRecordedOrAwaitedDuringCaptureNorWaitedOnOnceClosed() {
        CountDownLatch gate = new CountDownLatch(1);
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignStream framework = heldStream(gate)) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.createStream();
            Event pending = comm.wrapStream(framework.handle()).record();
            stream.beginCapture();
            assertContains(
                    assertThrows(CollectivesException.class, stream::record).getMessage(),
                    "record() on",
                    "while it is being captured");
            assertThrows(CollectivesException.class, () -> stream.waitFor(pending));
            stream.endCapture().close();
            pending.close();
            assertContains(
                    assertThrows(CollectivesException.class, () -> stream.waitFor(pending))
                            .getMessage(),
                    "waitFor()",
                    "was closed before it was seen done");
            CollectivesException unknown = assertThrows(CollectivesException.class, () -> comm.wrapStream(0x7));
            assertContains(unknown.getMessage(), "no live stream");
            gate.countDown();
        }
    }
}
