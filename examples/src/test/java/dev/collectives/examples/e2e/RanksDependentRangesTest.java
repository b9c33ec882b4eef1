package dev.collectives.examples.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllToAll;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Grouped;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Recv;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Send;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Ranges that depend on the communicator's size where {@code ranks} is not declared (R7): an allgather's recv,
 * a reducescatter's send and an alltoall's both reach {@code count × ranks}, and a group's ops run concurrently.
 * Each pipeline binds and runs up to some size and fails at bind beyond it, on every rank, before any step.
 */
class RanksDependentRangesTest {
    /** recv reaches 8 × ranks into 16 elements: fits 2 ranks. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface GatherPastRecv {
        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer in();

        @Buffer(type = DataType.FLOAT32, count = 16)
        DeviceBuffer out();

        @AllGather(send = "in", recv = "out", sendCount = 8)
        void gather();
    }

    /** send reaches 8 × ranks into 16 elements: fits 2 ranks. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface ScatterPastSend {
        @Buffer(type = DataType.FLOAT32, count = 16)
        DeviceBuffer in();

        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer out();

        @ReduceScatter(send = "in", recv = "out", recvCount = 8)
        void scatter();
    }

    /** send [0, 8 × ranks) and recv [32, 40) of one block: apart up to 4 ranks. */
    @CollectivePipeline(registration = Registration.NONE)
    interface ScatterInBlock {
        @Buffer(type = DataType.FLOAT32, count = 64)
        DeviceBuffer block();

        @ReduceScatter(send = "block", recv = "block", recvOffset = 32, recvCount = 8)
        void scatter();
    }

    /** send [0, 4 × ranks) and recv [16, 16 + 4 × ranks) of one block: apart up to 4 ranks. */
    @CollectivePipeline(registration = Registration.GRAPH)
    interface AllToAllInBlock {
        @Buffer(type = DataType.FLOAT32, count = 48)
        DeviceBuffer block();

        @AllToAll(send = "block", recv = "block", recvOffset = 16, count = 4)
        void exchange();
    }

    /** send and recv reach 4 × ranks into 8 elements: fit 2 ranks. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface AllToAllPastBoth {
        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer in();

        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer out();

        @AllToAll(send = "in", recv = "out", count = 4)
        void exchange();
    }

    /** In one group, the allgather writes [0, 4 × ranks) while the receive writes [16, 20): apart up to 4 ranks. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface GatherBesideRecv {
        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer in();

        @Buffer(type = DataType.FLOAT32, count = 64)
        DeviceBuffer block();

        @Grouped
        @AllGather(send = "in", recv = "block", sendCount = 4)
        @Send(buffer = "in", offset = 4, count = 4, peer = Peer.NEXT)
        @Recv(buffer = "block", offset = 16, count = 4, peer = Peer.PREVIOUS)
        void gatherAndPass();
    }

    private interface Binding {
        Pipeline bind(RankContext rank);
    }

    private static Binding binding(String pipeline) {
        switch (pipeline) {
            case "GatherPastRecv":
                return r -> CollectiveRanksDependentRangesTest_GatherPastRecv.bind(r.comm(), r.stream());
            case "ScatterPastSend":
                return r -> CollectiveRanksDependentRangesTest_ScatterPastSend.bind(r.comm(), r.stream());
            case "ScatterInBlock":
                return r -> CollectiveRanksDependentRangesTest_ScatterInBlock.bind(r.comm(), r.stream());
            case "AllToAllInBlock":
                return r -> CollectiveRanksDependentRangesTest_AllToAllInBlock.bind(r.comm(), r.stream());
            case "AllToAllPastBoth":
                return r -> CollectiveRanksDependentRangesTest_AllToAllPastBoth.bind(r.comm(), r.stream());
            default:
                return r -> CollectiveRanksDependentRangesTest_GatherBesideRecv.bind(r.comm(), r.stream());
        }
    }

    @ParameterizedTest(name = "{0}: binds at {1} ranks, fails at {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GatherPastRecv | 2 | 3 | the recv of @AllGather #1 in gather() reaches past `out`: elements [0, 24), but "
                        + "it holds 16",
                "ScatterPastSend | 2 | 3 | the send of @ReduceScatter #1 in scatter() reaches past `in`: elements [0, 24), "
                        + "but it holds 16",
                "ScatterInBlock | 4 | 5 | @ReduceScatter #1: send bytes [0, 160) and recv bytes [128, 160) overlap",
                "AllToAllInBlock | 4 | 5 | @AllToAll #1: send bytes [0, 80) and recv bytes [64, 144) overlap",
                "AllToAllPastBoth | 2 | 3 | the send of @AllToAll #1 in exchange() reaches past `in`: elements [0, 12), "
                        + "but it holds 8",
                "GatherBesideRecv | 4 | 5 | the recv of @AllGather #1 in gatherAndPass() and the recv of @Recv #3 in "
                        + "gatherAndPass() use bytes [0, 80) and [64, 80), which overlap; the ops of a group run "
                        + "concurrently"
            })
    void bindsUpToASizeAndFailsBeyondItWithR7OnEveryRank(String pipeline, int fits, int fails, String why) {
        Binding binding = binding(pipeline);
        try (LocalCluster cluster = dev.collectives.runtime.Backends.get("sim").local(fits)) {
            cluster.run(rank -> binding.bind(rank).close());
        }
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(fails);
        Ranks.run(
                fails,
                rank -> failures.set(
                        rank.rank(),
                        assertThrows(
                                CollectivesException.class,
                                () -> binding.bind(rank).close())));
        for (int r = 0; r < fails; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R7_ARENA, e.rule(), e.getMessage());
            assertTrue(e.getMessage().contains(why), e.getMessage());
        }
    }
}
