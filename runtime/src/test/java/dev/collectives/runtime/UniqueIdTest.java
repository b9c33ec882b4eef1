package dev.collectives.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.backend.sim.SimBackend;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A unique id made elsewhere: its hex form, its settings, and the sim's refusal of it. */
class UniqueIdTest {
    private static final String HEX = "0a1b".repeat(UniqueId.BYTES / 2);

    @Test
    void hexInAndOutAreTheSameBytes() {
        UniqueId id = UniqueId.parse("  " + HEX.toUpperCase(java.util.Locale.ROOT) + "\n");

        assertEquals(HEX, id.hex());
        assertEquals(0x0a, id.bytes()[0]);
        assertEquals(0x1b, id.bytes()[UniqueId.BYTES - 1]);
        assertEquals(id, UniqueId.of(id.bytes()));
        assertEquals(id.hashCode(), UniqueId.of(id.bytes()).hashCode());
        assertNotEquals(id, UniqueId.of(new byte[UniqueId.BYTES]));
        assertEquals("unique id 0a1b0a1b0a1b0a1b...", id.toString());
    }

    @Test
    void theBytesAreCopiedInAndOut() {
        byte[] bytes = new byte[UniqueId.BYTES];
        UniqueId id = UniqueId.of(bytes);
        bytes[0] = 7;
        id.bytes()[1] = 7;
        assertArrayEquals(new byte[UniqueId.BYTES], id.bytes());
    }

    @Test
    void aWrongLengthOrCharacterIsNamed() {
        assertEquals(
                "a unique id is 128 bytes (ncclUniqueId); got 64 bytes",
                assertThrows(IllegalArgumentException.class, () -> UniqueId.of(new byte[64]))
                        .getMessage());
        assertEquals(
                "a unique id is written as 256 hex digits (128 bytes); got 254 digits",
                assertThrows(IllegalArgumentException.class, () -> UniqueId.parse(HEX.substring(2)))
                        .getMessage());
        assertEquals(
                "a unique id is written as 256 hex digits (128 bytes); got 128 digits: is it the bytes themselves, "
                        + "not their hex?",
                assertThrows(IllegalArgumentException.class, () -> UniqueId.parse(HEX.substring(128)))
                        .getMessage());
        assertEquals(
                "a unique id is written as 256 hex digits; character 3 is 'g'",
                assertThrows(IllegalArgumentException.class, () -> UniqueId.parse("0ag" + HEX.substring(3)))
                        .getMessage());
    }

    @Test
    void aUniqueIdInTheEnvironmentReplacesTheRendezvous() {
        Bootstrap bootstrap = Bootstrap.fromEnvironment(Map.of(
                "COLLECTIVES_UNIQUE_ID", HEX,
                "COLLECTIVES_RANK", "1",
                "COLLECTIVES_WORLD_SIZE", "2",
                "MASTER_ADDR", "10.0.0.1",
                "MASTER_PORT", "29500"));

        assertEquals(Optional.of(UniqueId.parse(HEX)), bootstrap.uniqueId());
        assertEquals(Peers.FOREIGN, bootstrap.peers());
        assertEquals(Optional.empty(), bootstrap.endpoint());
        assertTrue(
                bootstrap
                        .describe()
                        .contains("rendezvous none: a unique id 0a1b0a1b0a1b0a1b... (COLLECTIVES_UNIQUE_ID), peers "
                                + "foreign (default)"),
                bootstrap.describe());
        CollectivesException e = assertThrows(CollectivesException.class, bootstrap::rendezvous);
        assertTrue(e.getMessage().contains("no rendezvous: the ranks form their communicator from the unique id"));
    }

    @Test
    void peersTakeForeignOrCollectives() {
        Map<String, String> job = Map.of("COLLECTIVES_UNIQUE_ID", HEX, "COLLECTIVES_PEERS", "Collectives");
        assertEquals(Peers.COLLECTIVES, Bootstrap.fromEnvironment(job).peers());
        CollectivesException e = assertThrows(
                CollectivesException.class, () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_PEERS", "java")));
        assertEquals(
                "[bootstrap] COLLECTIVES_PEERS is 'java'; it takes foreign (some ranks run another library) or "
                        + "collectives",
                e.getMessage());
    }

    @Test
    void aUniqueIdThatIsNotOneIsASettingsFailureNamingTheVariable() {
        CollectivesException e = assertThrows(
                CollectivesException.class, () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_UNIQUE_ID", "xyz")));
        assertEquals(Result.INVALID_USAGE, e.result());
        assertEquals(
                "[bootstrap] COLLECTIVES_UNIQUE_ID is not a unique id: a unique id is written as 256 hex digits; "
                        + "character 1 is 'x'",
                e.getMessage());
    }

    @Test
    void theSimRefusesWhatOnlyNcclAndMcclHave() {
        SimBackend sim = new SimBackend();
        Bootstrap bootstrap = Bootstrap.builder()
                .rank(0)
                .size(2)
                .uniqueId(UniqueId.parse(HEX))
                .build();

        CollectivesException join = assertThrows(CollectivesException.class, () -> sim.join(bootstrap));
        CollectivesException id = assertThrows(CollectivesException.class, sim::uniqueId);
        CollectivesException wrap =
                assertThrows(CollectivesException.class, () -> sim.wrapCommunicator(0x1000, Peers.FOREIGN));

        assertEquals(
                "rank 0: backend 'sim' cannot form a communicator from a unique id 0a1b0a1b0a1b0a1b...: its ranks meet "
                        + "through a rendezvous (COLLECTIVES_RENDEZVOUS), and a unique id is NCCL's or MCCL's; use "
                        + "nccl or mccl, or unset COLLECTIVES_UNIQUE_ID",
                join.getMessage());
        assertEquals(
                "backend 'sim' makes no unique id: its ranks meet through a rendezvous (COLLECTIVES_RENDEZVOUS); a "
                        + "unique id is NCCL's or MCCL's, so use nccl or mccl",
                id.getMessage());
        assertEquals(
                "backend 'sim' cannot wrap a communicator handle: its communicators are its own, ranks of one "
                        + "simulated device; an ncclComm_t or mcclComm_t needs nccl or mccl",
                wrap.getMessage());
        assertFalse(join.getMessage().contains(HEX), "the full id is never printed");
    }
}
