package dev.collectives.backend.device;

import static dev.collectives.backend.device.GpuFixture.RANKS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.bootstrap.TestRanks;
import java.util.stream.IntStream;
import org.bytedeco.javacpp.LongPointer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Communicator creation: config (CTAPolicy, collnetEnable), CommInitAll, split, and what is reported. The tests of
 * several ranks run them on two GPUs, or as processes on one ({@link GpuFixture.ProcessesOnOneGpu}).
 */
@Tag("gpu")
class DeviceInitGpuTest {
    @Test
    void reportsVersionAndSymbols() {
        DeviceBackend backend = GpuFixture.backend();
        NativeLibrary n = NativeLibrary.require(backend.dialect());
        StringBuilder optional = new StringBuilder();
        for (int slot = 0; slot < n.api.slotCount(); slot++) {
            if (n.api.slotRequired(slot) == 0) {
                optional.append(' ')
                        .append(n.symbolOfSlot(slot))
                        .append(n.api.has(n.lib, slot) != 0 ? "=present" : "=absent");
            }
        }
        System.out.println(backend.name() + " " + backend.libraryVersion() + " devices=" + n.deviceCount()
                + " optional:" + optional);
        assertFalse(backend.libraryVersion().isEmpty());
    }

    @Test
    @ExtendWith(GpuFixture.ProcessesOnOneGpu.class)
    void configWithCtaPolicyAndCollnetOffReduces() {
        CommConfig config = CommConfig.DEFAULT.withCtaPolicy(1).withCollnet(false);
        try (TestRanks ranks = GpuFixture.ranks(config)) {
            ranks.run(ctx -> {
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
    @ExtendWith(GpuFixture.ProcessesOnOneGpu.class)
    void captureAsTheFirstCollectiveOfAFreshCommunicator() {
        try (TestRanks ranks = GpuFixture.ranks()) {
            java.util.concurrent.ConcurrentLinkedQueue<String> outcomes =
                    new java.util.concurrent.ConcurrentLinkedQueue<>();
            try {
                ranks.run(ctx -> {
                    try (DeviceBuffer b = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024)) {
                        float[] ones = new float[1024];
                        java.util.Arrays.fill(ones, 1f);
                        b.copyFromHost(ones);
                        ctx.stream().beginCapture();
                        try {
                            ctx.comm().allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                        } finally {
                            try (var graph = ctx.stream().endCapture();
                                    var exec = graph.instantiate()) {
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
            if (GpuFixture.backend().dialect().connectsAtInit()) {
                assertEquals(
                        ranks.here().count(),
                        outcomes.stream()
                                .filter(o -> o.endsWith("captured and replayed"))
                                .count(),
                        outcomes.toString());
            }
        }
    }

    /** CommInitAll over this host's devices, at most {@link GpuFixture#RANKS}: one process holds them all. */
    @Test
    void commInitAll() {
        NativeLibrary n = NativeLibrary.require(GpuFixture.backend().dialect());
        int[] devices = IntStream.range(0, Math.min(RANKS, n.deviceCount())).toArray();
        long[] comms = new long[devices.length];
        n.check(n.api.commInitAll(n.lib, comms, devices.length, devices), -1, 0, "CommInitAll");
        int[] count = new int[1];
        for (long comm : comms) {
            assertNotEquals(0, comm);
            n.check(n.api.commCount(n.lib, comm, count), -1, comm, "CommCount");
            assertEquals(devices.length, count[0]);
        }
        // finalize is collective: the communicators of one thread are finalized in a group, then destroyed
        n.check(n.api.groupStart(n.lib), -1, 0, "GroupStart");
        for (long comm : comms) {
            n.check(n.api.commFinalize(n.lib, comm), -1, comm, "CommFinalize");
        }
        n.check(n.api.groupEnd(n.lib), -1, 0, "GroupEnd");
        for (long comm : comms) {
            n.check(n.api.commDestroy(n.lib, comm), -1, 0, "CommDestroy");
        }
    }

    /**
     * CommSplit through the shim, each rank into a color of its own: split is collective, and the library fills the
     * child when the split completes (at GroupEnd, or later on a non-blocking parent, whose state says when), so its
     * slot is native memory that outlives the split call.
     */
    @Test
    @ExtendWith(GpuFixture.ProcessesOnOneGpu.class)
    void commSplit() {
        try (TestRanks ranks = GpuFixture.ranks()) {
            ranks.run(ctx -> {
                DeviceCommunicator comm = (DeviceCommunicator) ctx.comm();
                NativeComm parent = comm.nativeComm();
                NativeLibrary n = comm.library();
                int r = ctx.rank();
                long child;
                try (LongPointer slot = new LongPointer(1)) {
                    slot.put(0L);
                    n.check(n.api.groupStart(n.lib), r, 0, "GroupStart");
                    parent.complete(n.api.commSplit(n.lib, parent.handle(), r, 0, slot), "CommSplit");
                    parent.complete(n.api.groupEnd(n.lib), "GroupEnd");
                    child = slot.get();
                }
                assertNotEquals(0, child, "rank " + r + "'s child communicator");
                int[] count = new int[1];
                n.check(n.api.commCount(n.lib, child, count), r, child, "CommCount");
                assertEquals(1, count[0], "each color holds one rank");
                int[] state = new int[1];
                int finalized = n.api.commFinalize(n.lib, child);
                if (finalized == InProgress.CODE) { // the child is non-blocking like its parent
                    finalized = InProgress.await(
                            () -> {
                                n.check(n.api.commAsyncError(n.lib, child, state), r, child, "CommGetAsyncError");
                                return state[0];
                            },
                            parent.waits(),
                            parent.waits().syncTimeoutNanos(),
                            () -> new IllegalStateException("rank " + r + "'s child did not finalize"));
                }
                n.check(finalized, r, child, "CommFinalize");
                n.check(n.api.commDestroy(n.lib, child), r, 0, "CommDestroy");
            });
        }
    }
}
