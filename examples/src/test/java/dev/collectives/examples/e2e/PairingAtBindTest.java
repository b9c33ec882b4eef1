package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Broadcast;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Recv;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Send;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Result;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * [DSL step] at bind: where a pipeline does not declare {@code ranks}, the generated bind checks that the sends and
 * receives of each step pair up at the communicator's size, before the first step, and every rank fails with the
 * same message instead of waiting for ever in the step.
 */
class PairingAtBindTest {
    private static final int COUNT = 8;

    /** Sends to the next rank, receives from the previous: pairs at any size. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface Ring {
        @Dim
        long elements();

        @Buffer(type = DataType.FLOAT32, countExpr = "elements")
        DeviceBuffer outbox();

        @Buffer(type = DataType.FLOAT32, countExpr = "elements")
        DeviceBuffer inbox();

        @Send(buffer = "outbox", countExpr = "elements", peer = Peer.NEXT)
        @Recv(buffer = "inbox", countExpr = "elements", peer = Peer.PREVIOUS)
        void pass();
    }

    /** Sends to and receives from the next rank: a swap at 2 ranks (next is previous), unpaired at 3 and more. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface SwapWithNext {
        @Buffer(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer outbox();

        @Buffer(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer inbox();

        @Send(buffer = "outbox", count = COUNT, peer = Peer.NEXT)
        @Recv(buffer = "inbox", count = COUNT, peer = Peer.NEXT)
        void swap();
    }

    /** Receives 16 / ranks elements of the 8 sent: pairs at 2 ranks only. Captured: the check comes first. */
    @CollectivePipeline(registration = Registration.GRAPH)
    interface ShareOfSixteen {
        @Buffer(type = DataType.FLOAT32, count = 16)
        DeviceBuffer outbox();

        @Buffer(type = DataType.FLOAT32, count = 16)
        DeviceBuffer inbox();

        @Send(buffer = "outbox", count = COUNT, peer = Peer.NEXT)
        @Recv(buffer = "inbox", countExpr = "16 / ranks", peer = Peer.PREVIOUS)
        void pass();
    }

    /** Rank 2 broadcasts (it needs 3 ranks); every rank sends to rank 0 and receives from rank 1 (never pairs). */
    @CollectivePipeline(registration = Registration.NONE)
    interface NamesRanks {
        @Buffer(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer outbox();

        @Buffer(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer inbox();

        @Broadcast(send = "outbox", recv = "inbox", count = COUNT, root = 2)
        void share();

        @Send(buffer = "outbox", count = COUNT, peer = Peer.ABSOLUTE, peerRank = 0)
        @Recv(buffer = "inbox", count = COUNT, peer = Peer.ABSOLUTE, peerRank = 1)
        void hand();
    }

    /** Counts known only at the call: the peers still pair (or not) at bind. */
    @CollectivePipeline(registration = Registration.NONE)
    interface SwapCountedAtCall {
        @Buffer(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer outbox();

        @Buffer(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer inbox();

        @Send(buffer = "outbox", countExpr = "n", peer = Peer.NEXT)
        @Recv(buffer = "inbox", countExpr = "n", peer = Peer.NEXT)
        void swap(long n);
    }

    /** Runs {@code bind} on every rank and returns what each rank's bind threw (every rank must throw). */
    private static AtomicReferenceArray<CollectivesException> bindFailures(int ranks, LocalCluster.RankBody bind) {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(ranks);
        Ranks.run(
                ranks,
                rank -> failures.set(rank.rank(), assertThrows(CollectivesException.class, () -> bind.run(rank))));
        return failures;
    }

    /** Every rank failed with {@code expected}, word for word, tagged [DSL step] and naming no rule. */
    private static void assertSameOnEveryRank(AtomicReferenceArray<CollectivesException> failures, String expected) {
        for (int r = 0; r < failures.length(); r++) {
            CollectivesException e = failures.get(r);
            assertNull(e.rule(), e.getMessage());
            assertEquals(Result.INVALID_USAGE, e.result(), e.getMessage());
            assertEquals(r, e.rank(), e.getMessage());
            assertEquals(expected, e.getMessage());
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4})
    void aRingPairsAtEverySizeAndPassesItsData(int ranks) {
        Ranks.run(ranks, rank -> {
            try (var p = CollectivePairingAtBindTest_Ring.binder(rank.comm(), rank.stream())
                    .elements(COUNT)
                    .bind()) {
                p.outbox().copyFromHost(Ranks.ramp(rank.rank(), COUNT));
                p.pass();
                rank.stream().synchronize();
                assertFloats(Ranks.ramp((rank.rank() + ranks - 1) % ranks, COUNT), p.inbox(), "inbox");
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2})
    void aSwapWithTheNextRankPairsAtOneAndTwoRanks(int ranks) {
        Ranks.run(ranks, rank -> {
            try (var p = CollectivePairingAtBindTest_SwapWithNext.bind(rank.comm(), rank.stream())) {
                p.outbox().copyFromHost(Ranks.ramp(rank.rank(), COUNT));
                p.swap();
                rank.stream().synchronize();
                assertFloats(Ranks.ramp((rank.rank() + 1) % ranks, COUNT), p.inbox(), "inbox");
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 4})
    void aSwapWithTheNextRankFailsAtBindFromThreeRanksOn(int ranks) {
        String expected = "[DSL step] dev.collectives.examples.e2e.PairingAtBindTest.SwapWithNext: @Send #1 in "
                + "swap(): rank 0 sends to rank 1, which receives nothing more from rank 0 in this step with " + ranks
                + " ranks; add the matching @Recv; unpaired point-to-point ops hang every rank (and 1 more unpaired "
                + "in this step) (see docs/rules.md#dsl-step)";
        assertSameOnEveryRank(
                bindFailures(
                        ranks,
                        rank -> CollectivePairingAtBindTest_SwapWithNext.bind(rank.comm(), rank.stream())
                                .close()),
                expected);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 4})
    void aReceiveSizedByTheRanksFailsWhereItsCountDiffersFromTheSend(int ranks) {
        AtomicReferenceArray<CollectivesException> failures = bindFailures(
                ranks,
                rank -> CollectivePairingAtBindTest_ShareOfSixteen.bind(rank.comm(), rank.stream())
                        .close());
        String expected = "[DSL step] dev.collectives.examples.e2e.PairingAtBindTest.ShareOfSixteen: @Recv #2 in "
                + "pass(): rank " + 1 % ranks + " receives " + 16 / ranks + " x FLOAT32 from rank 0, which sends 8 x "
                + "FLOAT32 in this step with " + ranks + (ranks == 1 ? " rank" : " ranks")
                + "; a send and its receive have the same count and type; unpaired point-to-point ops hang every rank"
                + " (see docs/rules.md#dsl-step)";
        assertSameOnEveryRank(failures, expected);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2})
    void aReceiveSizedByTheRanksPairsWhereTheCountsAgree(int ranks) {
        Ranks.run(ranks, rank -> {
            try (var p = CollectivePairingAtBindTest_ShareOfSixteen.bind(rank.comm(), rank.stream())) {
                p.outbox().copyFromHost(Ranks.ramp(rank.rank(), 16));
                p.pass();
                rank.stream().synchronize();
                assertFloats(Ranks.ramp((rank.rank() + ranks - 1) % ranks, COUNT), p.inbox(), "inbox");
            }
        });
    }

    @Test
    void aRootOrPeerOutsideTheCommunicatorFailsAtBindOnEveryRank() {
        AtomicReferenceArray<CollectivesException> failures = bindFailures(
                2,
                rank -> CollectivePairingAtBindTest_NamesRanks.bind(rank.comm(), rank.stream())
                        .close());
        for (int r = 0; r < 2; r++) {
            String message = failures.get(r).getMessage();
            assertEquals(Result.INVALID_USAGE, failures.get(r).result(), message);
            assertTrue(
                    message.contains("[DSL step] dev.collectives.examples.e2e.PairingAtBindTest.NamesRanks: the "
                            + "root of @Broadcast #1 in share() is rank 2, but the communicator has 2 ranks (see "
                            + "docs/rules.md#dsl-step)"),
                    message);
        }
        // at 3 ranks the root exists, but every rank sends to rank 0, which receives from rank 1 only
        assertSameOnEveryRank(
                bindFailures(
                        3,
                        rank -> CollectivePairingAtBindTest_NamesRanks.bind(rank.comm(), rank.stream())
                                .close()),
                "[DSL step] dev.collectives.examples.e2e.PairingAtBindTest.NamesRanks: @Send #1 in hand(): rank 0 "
                        + "sends to rank 0, which receives nothing more from rank 0 in this step with 3 ranks; add "
                        + "the matching @Recv; unpaired point-to-point ops hang every rank (and 1 more unpaired in "
                        + "this step) (see docs/rules.md#dsl-step)");
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void peersPairAtBindEvenWhereOnlyTheCallKnowsTheCounts(int ranks) {
        if (ranks == 2) {
            Ranks.run(ranks, rank -> {
                try (var p = CollectivePairingAtBindTest_SwapCountedAtCall.bind(rank.comm(), rank.stream())) {
                    p.outbox().copyFromHost(Ranks.ramp(rank.rank(), COUNT));
                    p.swap(4);
                    rank.stream().synchronize();
                    assertFloats(Ranks.ramp(1 - rank.rank(), 4), p.inbox(), "inbox");
                }
            });
            return;
        }
        AtomicReferenceArray<CollectivesException> failures = bindFailures(
                ranks,
                rank -> CollectivePairingAtBindTest_SwapCountedAtCall.bind(rank.comm(), rank.stream())
                        .close());
        for (int r = 0; r < ranks; r++) {
            String message = failures.get(r).getMessage();
            assertTrue(
                    message.startsWith("[DSL step] dev.collectives.examples.e2e.PairingAtBindTest"
                            + ".SwapCountedAtCall: @Send #1 in swap(): rank 0 sends to rank 1, which receives nothing more "
                            + "from rank 0 in this step with 3 ranks"),
                    message);
            assertTrue(!message.contains("null"), message);
        }
    }
}
