package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.FlightRecord.State;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.Capture;
import dev.collectives.runtime.internal.Lifecycle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call's number is the same in sim's failure, the flight record and the JFR failure event: the rank's flight
 * record entry, counted over every call it issued (collectives, sends and receives, graph launches).
 */
@Timeout(30)
class OpNumbersTest {
    private static final DataType F32 = DataType.FLOAT32;

    @TempDir
    Path out;

    @Test
    void aCollectiveARankNeverCallsIsNamedByTheFlightRecordsEntryInTheMessageAndTheFailureEvent() throws Exception {
        ConcurrentMap<Integer, Failure> failures = new ConcurrentHashMap<>();
        List<RecordedEvent> events = recordingFailures(() -> run(3, ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            try (DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                    DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                comm.allReduce(a, b, 8, F32, ReduceOp.SUM, stream); // #1
                comm.groupStart(); // #2 and #3: a ring of sends and receives, which the entries count too
                comm.send(a, 8, F32, (ctx.rank() + 1) % 3, stream);
                comm.recv(b, 8, F32, (ctx.rank() + 2) % 3, stream);
                comm.groupEnd();
                comm.allReduce(a, b, 4, F32, ReduceOp.SUM, stream); // #4
                stream.synchronize();
                if (ctx.rank() == 2) {
                    return;
                }
                comm.allGather(a, b, 2, F32, stream); // #5, which rank 2 never calls
                failures.put(ctx.rank(), synchronizeFails(comm, stream));
            }
        }));

        for (int rank : new int[] {0, 1}) {
            assertEquals(5, failures.get(rank).entry().seq());
            assertEquals("allGather", failures.get(rank).entry().call());
            assertContains(
                    failures.get(rank).message(),
                    "rank " + rank + ": collective call #5 failed: ranks [2] did not arrive");
            RecordedEvent event = failureEvent(events, rank);
            assertEquals(failures.get(rank).message(), event.getString("message"));
            assertTrue(
                    event.getString("position").startsWith("last enqueued #5 allGather(2 x FLOAT32) (failed)"),
                    event.getString("position"));
        }
    }

    @Test
    void anOpOfAGraphIsNamedByTheGraphLaunchsEntryAndItsPlaceInTheGraph() {
        ConcurrentMap<Integer, Failure> failures = new ConcurrentHashMap<>();
        run(3, ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            try (DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                    DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                    Graph graph = Capture.capture(comm, stream, "p.Replayed", "step", () -> {
                        comm.allReduce(a, b, 8, F32, ReduceOp.SUM, stream);
                        comm.allGather(a, b, 2, F32, stream);
                    });
                    GraphExec exec = graph.instantiate()) {
                comm.broadcast(a, b, 8, F32, 0, stream); // #1
                replay(comm, exec, stream); // #2
                stream.synchronize();
                if (ctx.rank() == 2) {
                    return;
                }
                replay(comm, exec, stream); // #3, which rank 2 never launches
                failures.put(ctx.rank(), synchronizeFails(comm, stream));
            }
        });

        for (int rank : new int[] {0, 1}) {
            assertEquals(3, failures.get(rank).entry().seq());
            assertEquals("graph", failures.get(rank).entry().call());
            assertContains(
                    failures.get(rank).message(),
                    "collective call #3 (op 0 of the graph launched as #3) failed: ranks [2] did not arrive");
        }
    }

    @Test
    void aSendNobodyReceivesIsNamedByItsEntryAndItsPair() {
        ConcurrentMap<Integer, Failure> failures = new ConcurrentHashMap<>();
        run(2, ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            try (DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                comm.allReduce(a, a, 8, F32, ReduceOp.SUM, stream); // #1
                comm.broadcast(a, a, 8, F32, 0, stream); // #2
                stream.synchronize();
                if (ctx.rank() == 1) {
                    return;
                }
                comm.send(a, 8, F32, 1, stream); // #3, which rank 1 never receives
                failures.put(ctx.rank(), synchronizeFails(comm, stream));
            }
        });

        assertEquals(3, failures.get(0).entry().seq());
        assertContains(
                failures.get(0).message(),
                "rank 0: send call #3 (send #0 from rank 0 to rank 1) failed: rank 1 posted no matching recv");
    }

    private static void replay(Communicator comm, GraphExec exec, Stream stream) {
        Lifecycle.requireOpenForReplay(comm, "p.Replayed", false, "step");
        exec.launch(stream);
        Lifecycle.stepDone(comm, stream);
    }

    /** A rank's synchronize failed: its message, and the one entry of its record that failed. */
    private record Failure(String message, Entry entry) {}

    private static Failure synchronizeFails(Communicator comm, Stream stream) {
        String message =
                assertThrows(CollectivesException.class, stream::synchronize).getMessage();
        List<Entry> failed = comm.flightRecord().entries().stream()
                .filter(e -> e.state() == State.FAILED)
                .toList();
        assertEquals(1, failed.size(), comm.flightRecord().entries().toString());
        return new Failure(message, failed.get(0));
    }

    /**
     * Runs {@code body} on every rank, which catches the failures it expects; the timeout is long enough for ranks
     * that all call on a busy machine, short for those that wait for one that never does.
     */
    private static void run(int ranks, LocalCluster.RankBody body) {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(ranks).timeout(Duration.ofSeconds(2)).build()) {
            Throwable[] f = failures(cluster, body);
            for (Throwable failure : f) {
                assertNull(failure);
            }
        }
    }

    private List<RecordedEvent> recordingFailures(Runnable body) throws Exception {
        Path file = out.resolve("failures.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.collectives.Failure");
            recording.start();
            body.run();
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file);
    }

    private static RecordedEvent failureEvent(List<RecordedEvent> events, int rank) {
        List<RecordedEvent> ofRank = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.collectives.Failure"))
                .filter(e -> e.getInt("rank") == rank)
                .toList();
        assertEquals(1, ofRank.size(), ofRank.toString());
        return ofRank.get(0);
    }
}
