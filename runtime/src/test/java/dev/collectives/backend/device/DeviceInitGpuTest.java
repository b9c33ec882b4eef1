package dev.collectives.backend.device;

import static dev.collectives.backend.device.GpuFixture.RANKS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;

import org.bytedeco.javacpp.LongPointer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Communicator creation: config (CTAPolicy, collnetEnable), CommInitAll, split, and what is reported. */
@Tag("gpu")
class DeviceInitGpuTest {
    @Test
    void reportsVersionAndSymbols() {
        DeviceBackend backend = GpuFixture.backend();
        NativeLibrary n = NativeLibrary.require(backend.dialect());
        StringBuilder optional = new StringBuilder();
        for (int slot = 0; slot < NativeShim.slotCount(); slot++) {
            if (NativeShim.slotRequired(slot) == 0) {
                optional.append(' ').append(n.symbol(slot)).append(n.has(slot) ? "=present" : "=absent");
            }
        }
        System.out.println(backend.name() + " " + backend.libraryVersion() + " devices=" + n.deviceCount()
                + " optional:" + optional);
        assertFalse(backend.libraryVersion().isEmpty());
    }

    @Test
    void configWithCtaPolicyAndCollnetOffReduces() {
        CommConfig config = CommConfig.DEFAULT.withCtaPolicy(1).withCollnet(false);
        try (LocalCluster cluster = GpuFixture.backend().local(RANKS, config)) {
            cluster.run(ctx -> {
                assertFalse(ctx.comm().capabilities().ibSharp());
                try (DeviceBuffer b = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.INT64, 4096)) {
                    long[] mine = new long[4096];
                    java.util.Arrays.fill(mine, ctx.rank() + 5);
                    b.copyFromHost(mine);
                    ctx.comm().allReduce(b, b, 4096, DataType.INT64, ReduceOp.SUM, ctx.stream());
                    ctx.stream().synchronize();
                    b.copyToHost(mine);
                    assertEquals(11, mine[4095]);
                }
            });
        }
    }

    /**
     * The very first collective of a fresh communicator, captured into a graph (what binding a GRAPH pipeline
     * does): with connections made at init (this backend's default) it captures and replays; with lazy
     * connections NCCL 2.28 invalidates the capture, which is reported as the library's error, not a crash or
     * a hang. The log says which happened.
     */
    @Test
    void captureAsTheFirstCollectiveOfAFreshCommunicator() {
        try (LocalCluster cluster = GpuFixture.backend().local(RANKS)) {
            java.util.concurrent.ConcurrentLinkedQueue<String> outcomes = new java.util.concurrent.ConcurrentLinkedQueue<>();
            try {
                cluster.run(ctx -> {
                    try (DeviceBuffer b = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024)) {
                        float[] ones = new float[1024];
                        java.util.Arrays.fill(ones, 1f);
                        b.copyFromHost(ones);
                        ctx.stream().beginCapture();
                        try {
                            ctx.comm().allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                        } finally {
                            try (var graph = ctx.stream().endCapture(); var exec = graph.instantiate()) {
                                exec.launch(ctx.stream());
                                ctx.stream().synchronize();
                            }
                        }
                        b.copyToHost(ones);
                        assertEquals(2f, ones[0]);
                        outcomes.add("rank " + ctx.rank() + ": captured and replayed");
                    }
                });
            } catch (dev.collectives.runtime.CollectivesException e) {
                outcomes.add("failed: " + e.getMessage() + (e.getCause() == null ? "" : " / " + e.getCause()));
                org.junit.jupiter.api.Assertions.assertNotNull(e.result(), "a library error, with its code");
            }
            System.out.println("first collective under capture: " + outcomes);
            if (DeviceBackend.connectsAtInit(GpuFixture.backend().dialect())) {
                assertEquals(RANKS, outcomes.stream().filter(o -> o.endsWith("captured and replayed")).count(),
                        outcomes.toString());
            }
        }
    }

    @Test
    void commInitAll() {
        NativeLibrary n = NativeLibrary.require(GpuFixture.backend().dialect());
        long[] comms = initAll(n);
        finalizeAndDestroy(n, comms);
    }

    @Test
    void commSplit() {
        NativeLibrary n = NativeLibrary.require(GpuFixture.backend().dialect());
        long[] comms = initAll(n);
        // split is collective: both ranks at once, as a group from this one thread; the library fills the
        // children at GroupEnd, so their slots are native memory that outlives the split calls
        long[] children = new long[RANKS];
        try (LongPointer slots = new LongPointer(RANKS)) {
            slots.fill(0);
            n.check(NativeShim.groupStart(n.lib), -1, 0, "GroupStart");
            for (int r = 0; r < RANKS; r++) {
                n.check(NativeShim.commSplit(n.lib, comms[r], r, 0, slots.getPointer(r)), r, comms[r], "CommSplit");
            }
            n.check(NativeShim.groupEnd(n.lib), -1, 0, "GroupEnd");
            slots.get(children);
        }
        int[] count = new int[1];
        for (int r = 0; r < RANKS; r++) {
            assertNotEquals(0, children[r], "rank " + r + "'s child communicator");
            n.check(NativeShim.commCount(n.lib, children[r], count), r, children[r], "CommCount");
            assertEquals(1, count[0], "each color holds one rank");
        }
        finalizeAndDestroy(n, children);
        finalizeAndDestroy(n, comms);
    }

    private static long[] initAll(NativeLibrary n) {
        long[] comms = new long[RANKS];
        n.check(NativeShim.commInitAll(n.lib, comms, RANKS, new int[] {0, 1}), -1, 0, "CommInitAll");
        int[] count = new int[1];
        for (long comm : comms) {
            assertNotEquals(0, comm);
            n.check(NativeShim.commCount(n.lib, comm, count), -1, comm, "CommCount");
            assertEquals(RANKS, count[0]);
        }
        return comms;
    }

    /** Finalize is collective: the communicators of one thread are finalized in a group, then destroyed. */
    private static void finalizeAndDestroy(NativeLibrary n, long[] comms) {
        n.check(NativeShim.groupStart(n.lib), -1, 0, "GroupStart");
        for (long comm : comms) {
            n.check(NativeShim.commFinalize(n.lib, comm), -1, comm, "CommFinalize");
        }
        n.check(NativeShim.groupEnd(n.lib), -1, 0, "GroupEnd");
        for (long comm : comms) {
            n.check(NativeShim.commDestroy(n.lib, comm), -1, 0, "CommDestroy");
        }
    }
}
