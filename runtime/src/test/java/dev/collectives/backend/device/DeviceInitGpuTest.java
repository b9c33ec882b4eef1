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

    @Test
    void commInitAllAndSplit() {
        NativeLibrary n = NativeLibrary.require(GpuFixture.backend().dialect());
        long[] comms = new long[RANKS];
        n.check(NativeShim.commInitAll(n.lib, comms, RANKS, new int[] {0, 1}), -1, 0, "CommInitAll");
        int[] count = new int[1];
        for (long comm : comms) {
            assertNotEquals(0, comm);
            n.check(NativeShim.commCount(n.lib, comm, count), -1, comm, "CommCount");
            assertEquals(RANKS, count[0]);
        }
        // split is collective: both ranks at once, as a group from this one thread
        long[][] split = new long[RANKS][1];
        n.check(NativeShim.groupStart(n.lib), -1, 0, "GroupStart");
        for (int r = 0; r < RANKS; r++) {
            n.check(NativeShim.commSplit(n.lib, comms[r], r, 0, split[r]), r, comms[r], "CommSplit");
        }
        n.check(NativeShim.groupEnd(n.lib), -1, 0, "GroupEnd");
        for (int r = 0; r < RANKS; r++) {
            n.check(NativeShim.commCount(n.lib, split[r][0], count), r, split[r][0], "CommCount");
            assertEquals(1, count[0], "each color holds one rank");
            n.check(NativeShim.commDestroy(n.lib, split[r][0]), r, 0, "CommDestroy");
        }
        for (int r = 0; r < RANKS; r++) {
            n.check(NativeShim.commDestroy(n.lib, comms[r]), r, 0, "CommDestroy");
        }
    }
}
