package dev.collectives.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The pairing of a step's sends and receives, as both the processor and bind run it. */
class PeerPairingTest {
    private static final DataType F = DataType.FLOAT32;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void aRingPairsAtEverySize(int ranks) {
        assertEquals(
                List.of(),
                PeerPairing.unpaired(
                        List.of(
                                PeerPairing.Op.send(0, Peer.NEXT, -1, 8L, F),
                                PeerPairing.Op.recv(1, Peer.PREVIOUS, -1, 8L, F)),
                        ranks));
    }

    @Test
    void aSwapWithTheNextRankPairsAtTwoRanksOnlyAndReportsEachOpOnce() {
        List<PeerPairing.Op> swap =
                List.of(PeerPairing.Op.send(0, Peer.NEXT, -1, 8L, F), PeerPairing.Op.recv(1, Peer.NEXT, -1, 8L, F));
        assertEquals(List.of(), PeerPairing.unpaired(swap, 2));
        List<PeerPairing.Unpaired> unpaired = PeerPairing.unpaired(swap, 3);
        assertEquals(
                List.of(0, 1), unpaired.stream().map(PeerPairing.Unpaired::op).toList());
        assertEquals(
                "rank 0 sends to rank 1, which receives nothing more from rank 0 in this step with 3 ranks; add "
                        + "the matching @Recv; unpaired point-to-point ops hang every rank",
                unpaired.get(0).problem());
        assertEquals("@Recv #2", swap.get(unpaired.get(1).op()).label());
    }

    @Test
    void countsKnownOnlyAtTheCallCompareTheirTypes() {
        assertEquals(
                List.of(),
                PeerPairing.unpaired(
                        List.of(
                                PeerPairing.Op.send(0, Peer.NEXT, -1, null, F),
                                PeerPairing.Op.recv(1, Peer.PREVIOUS, -1, 4L, F)),
                        3));
        List<PeerPairing.Unpaired> unpaired = PeerPairing.unpaired(
                List.of(
                        PeerPairing.Op.send(0, Peer.NEXT, -1, null, F),
                        PeerPairing.Op.recv(1, Peer.PREVIOUS, -1, null, DataType.INT32)),
                2);
        assertEquals(1, unpaired.size());
        assertTrue(
                unpaired.get(0)
                        .problem()
                        .startsWith("rank 1 receives INT32 from rank 0, which sends FLOAT32 in "
                                + "this step with 2 ranks; a send and its receive have the same count and type"),
                unpaired.get(0).problem());
    }

    @Test
    void theKthSendOfAChannelMeetsItsKthReceive() {
        List<PeerPairing.Unpaired> unpaired = PeerPairing.unpaired(
                List.of(
                        PeerPairing.Op.send(0, Peer.NEXT, -1, 8L, F), PeerPairing.Op.send(1, Peer.NEXT, -1, 4L, F),
                        PeerPairing.Op.recv(2, Peer.PREVIOUS, -1, 4L, F),
                                PeerPairing.Op.recv(3, Peer.PREVIOUS, -1, 8L, F)),
                2);
        assertEquals(
                List.of(2, 3), unpaired.stream().map(PeerPairing.Unpaired::op).toList());
        assertTrue(
                unpaired.get(0)
                        .problem()
                        .startsWith("rank 1 receives 4 x FLOAT32 from rank 0, which sends 8 x " + "FLOAT32"),
                unpaired.get(0).problem());
    }

    @Test
    void aPeerOutsideTheCommunicatorIsLeftToItsOwnCheck() {
        assertEquals(List.of(), PeerPairing.unpaired(List.of(PeerPairing.Op.send(0, Peer.ABSOLUTE, 5, 8L, F)), 2));
        assertEquals(
                List.of(0),
                PeerPairing.unpaired(List.of(PeerPairing.Op.send(0, Peer.ABSOLUTE, 1, 8L, F)), 2).stream()
                        .map(PeerPairing.Unpaired::op)
                        .toList());
    }

    @Test
    void opsAreSendsAndReceivesOfTheCatalogue() {
        assertEquals("@Recv #4", PeerPairing.Op.recv(3, Peer.NEXT, -1, 8L, F).label());
        assertTrue(PeerPairing.Op.send(0, Peer.NEXT, -1, 8L, F).sends());
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> new PeerPairing.Op(0, OpKind.ALL_REDUCE, Peer.NEXT, -1, 8L, F));
        assertEquals("@AllReduce is not a point-to-point op", e.getMessage());
    }
}
