package dev.collectives.runtime.internal;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.backend.sim.SimCommunicator;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Stream.CaptureStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What generated pipelines delegate to the runtime: releasing in order, capture, the checks of sizes and of bind. */
class GeneratedCodeSupportTest {
    @Test
    void closeInOrderClosesEveryResourceAndThrowsTheFirstFailureWithTheLaterOnesAttached() {
        List<String> closed = new ArrayList<>();
        IllegalStateException first = new IllegalStateException("first");
        AutoCloseable failsFirst = () -> {
            closed.add("a");
            throw first;
        };
        AutoCloseable checked = () -> {
            closed.add("c");
            throw new Exception("checked");
        };
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> Lifecycle.closeInOrder(failsFirst, null, () -> closed.add("b"), checked));
        assertSame(first, thrown);
        assertEquals(List.of("a", "b", "c"), closed);
        assertEquals(1, thrown.getSuppressed().length);
        assertEquals("checked", thrown.getSuppressed()[0].getCause().getMessage());
    }

    @Test
    void openClosesWhatAFailedOpenMadeAndKeepsTheOpenFailureFirst() {
        RuntimeException closeFailure = new RuntimeException("close failed");
        List<String> events = new ArrayList<>();
        Pipeline pipeline = new Pipeline() {
            @Override
            public String describe() {
                return "test";
            }

            @Override
            public void close() {
                events.add("close");
                throw closeFailure;
            }
        };
        IllegalArgumentException openFailure = new IllegalArgumentException("open failed");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> Lifecycle.open(null, "p.Pipeline", Registration.NONE, pipeline, () -> {
                    throw openFailure;
                }));
        assertSame(openFailure, e);
        assertEquals(List.of("close"), events);
        assertSame(closeFailure, e.getSuppressed()[0]);
        assertSame(pipeline, Lifecycle.open(null, "p.Pipeline", Registration.NONE, pipeline, () -> events.add("open")));
    }

    @Test
    void r4CaptureThatFailsHalfwayEndsTheCaptureAndFreesItsPartialGraph() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            try (Stream stream = comm.createStream();
                    DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 8);
                    DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 8)) {
                IllegalStateException failure = new IllegalStateException("the second op failed");
                IllegalStateException e = assertThrows(
                        IllegalStateException.class,
                        () -> Capture.capture(comm, stream, "p.Pipeline", "step", () -> {
                            comm.allReduce(a, b, 8, DataType.FLOAT32, ReduceOp.SUM, stream);
                            throw failure;
                        }));
                assertSame(failure, e);
                assertEquals(CaptureStatus.NONE, stream.captureStatus());
                a.copyFromHost(new float[] {1, 2, 3, 4, 5, 6, 7, 8});
                try (Graph graph = Capture.capture(
                                comm,
                                stream,
                                "p.Pipeline",
                                "step",
                                () -> comm.allReduce(a, b, 8, DataType.FLOAT32, ReduceOp.SUM, stream));
                        GraphExec exec = graph.instantiate()) {
                    exec.launch(stream);
                    stream.synchronize();
                    float[] out = new float[8];
                    b.copyToHost(out);
                    assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, out);
                }
            }
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void r5ReplayAfterCloseIsRefusedAndOtherStepsAreMisuse() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            Lifecycle.requireOpenForReplay(comm, "p.P", false, "step");
            CollectivesException replay = assertThrows(
                    CollectivesException.class, () -> Lifecycle.requireOpenForReplay(comm, "p.P", true, "step"));
            assertEquals(Rule.R5_GRAPH_LIFETIME, replay.rule());
            assertContains(
                    replay.getMessage(),
                    "pipeline p.P is closed: step() after close() would replay a " + "destroyed graph");
            CollectivesException eager =
                    assertThrows(CollectivesException.class, () -> Lifecycle.requireOpen(comm, "p.P", true, "step"));
            assertEquals(null, eager.rule());
            assertContains(eager.getMessage(), "rank 0: pipeline p.P is closed: step() called after close()");
        }
    }

    // ---- sizes at bind and at call -------------------------------------------------------------------------------

    @Test
    void r7AndR13ChecksOfExpressionsNameTheConditionAndTheValues() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            SizeChecks.requireAtMost(comm, "P", Rule.R7_ARENA, "bucket(): offset + n <= elements", 1000, 1000);
            CollectivesException past = assertThrows(
                    CollectivesException.class,
                    () -> SizeChecks.requireAtMost(
                            comm, "P", Rule.R7_ARENA, "bucket(): offset + n <= elements", 1001, 1000));
            assertEquals(Rule.R7_ARENA, past.rule());
            assertContains(past.getMessage(), "P: bucket(): offset + n <= elements does not hold: 1001 > 1000");
            SizeChecks.requireAligned(comm, "P", Rule.R7_ARENA, "view", 12, 4);
            assertEquals(
                    Rule.R7_ARENA,
                    assertThrows(
                                    CollectivesException.class,
                                    () -> SizeChecks.requireAligned(comm, "P", Rule.R7_ARENA, "view", 6, 4))
                            .rule());
            assertEquals(
                    Rule.R13_TYPES,
                    assertThrows(CollectivesException.class, () -> BindChecks.requireDim(comm, "P", "elements", 0))
                            .rule());
            BindChecks.requireDim(comm, "P", "elements", 1);
        }
    }

    @Test
    void r13OverflowNeverWrapsAndMissingBinderValuesAreNamed() {
        assertThrows(ArithmeticException.class, () -> SizeChecks.divideExact(Long.MIN_VALUE, -1));
        assertEquals(-3, SizeChecks.divideExact(7, -2));
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            CollectivesException overflow =
                    SizeChecks.overflow(comm, "P", "bucket(...)", new ArithmeticException("long overflow"));
            assertEquals(Rule.R13_TYPES, overflow.rule());
            assertContains(overflow.getMessage(), "bucket(...): an expression overflows a long or divides by zero");
            assertEquals(Long.valueOf(5), BindChecks.given(comm, "P", 5L, "elements"));
            assertContains(
                    assertThrows(CollectivesException.class, () -> BindChecks.given(comm, "P", null, "elements"))
                            .getMessage(),
                    "bind() needs elements(...)");
        }
    }
}
