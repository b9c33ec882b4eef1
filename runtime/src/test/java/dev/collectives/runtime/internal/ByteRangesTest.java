package dev.collectives.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.backend.sim.SimCommunicator;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** R7 on byte ranges, as bind (generated code) and each call of the sim report it: in the catalogue's words. */
class ByteRangesTest {
    @Test
    void r7SliceReachingPastItsBufferNamesThePipelineAndTheElements() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            SimCommunicator comm = cluster.communicator(1);
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 16)) {
                String op = "the send of @AllReduce #1 in sum()";
                assertEquals(
                        4,
                        ByteRanges.slice(comm, "p.P", buffer, "buffer", op, 12, 4)
                                .count());
                assertR7(
                        "[R7 ARENA] rank 1: p.P: the send of @AllReduce #1 in sum() reaches past `buffer`: elements"
                                + " [12, 20), but it holds 16; shorten the op or enlarge the buffer",
                        () -> ByteRanges.slice(comm, "p.P", buffer, "buffer", op, 12, 8));
            }
        }
    }

    @Test
    void r7AtBindSendAndRecvCoincideOrAreApart() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            ByteRanges.requireInPlaceOrApart(comm, "P", "op", true, 0, 64, 0, 64);
            ByteRanges.requireInPlaceOrApart(comm, "P", "op", false, 0, 64, 64, 128);
            assertR7(
                    "[R7 ARENA] rank 0: P: op: send bytes [0, 64) and recv bytes [32, 96) overlap without"
                            + " coinciding; start them at the same byte (in place) or move them apart",
                    () -> ByteRanges.requireInPlaceOrApart(comm, "P", "op", true, 0, 64, 32, 96));
            assertR7(
                    "[R7 ARENA] rank 0: P: op: send bytes [0, 64) and recv bytes [0, 64) overlap, and this op cannot"
                            + " run in place at the same offsets on every rank; give send and recv separate ranges",
                    () -> ByteRanges.requireInPlaceOrApart(comm, "P", "op", false, 0, 64, 0, 64));
        }
    }

    @Test
    void r7TheOpsOfAGroupUseRangesApart() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            String first = "pass(): the recv of @AllGather #1";
            String second = "the recv of @Recv #3";
            ByteRanges.requireApartInGroup(comm, "P", first, second, 0, 64, 64, 80);
            assertR7(
                    "[R7 ARENA] rank 0: P: pass(): the recv of @AllGather #1 and the recv of @Recv #3 use bytes"
                            + " [0, 80) and [64, 80), which overlap; the ops of a group run concurrently, so give each its own"
                            + " range",
                    () -> ByteRanges.requireApartInGroup(comm, "P", first, second, 0, 80, 64, 80));
        }
    }

    @Test
    void r7AtTheCallIsTheSameCheckInTheSameWords() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            SimCommunicator comm = cluster.communicator(1);
            Stream stream = comm.createStream();
            try (DeviceBuffer buffer = comm.allocate(Allocator.LEGACY, DataType.INT32, 16)) {
                assertR7(
                        "[R7 ARENA] rank 1: allReduce: send bytes [0, 32) and recv bytes [16, 48) overlap without"
                                + " coinciding; start them at the same byte (in place) or move them apart",
                        () -> comm.allReduce(
                                buffer.slice(0, 8), buffer.slice(4, 8), 8, DataType.INT32, ReduceOp.SUM, stream));
                assertR7(
                        "[R7 ARENA] rank 1: allGather: send bytes [0, 16) and recv bytes [0, 32) overlap, and this"
                                + " op cannot run in place at the same offsets on every rank; give send and recv separate"
                                + " ranges",
                        () -> comm.allGather(buffer.slice(0, 4), buffer.slice(0, 8), 4, DataType.INT32, stream));
            }
        }
    }

    private static void assertR7(String expected, Executable check) {
        CollectivesException e = assertThrows(CollectivesException.class, check);
        assertEquals(Rule.R7_ARENA, e.rule());
        assertEquals(expected + " (see " + Rule.R7_ARENA.anchor() + ")", e.getMessage());
    }
}
