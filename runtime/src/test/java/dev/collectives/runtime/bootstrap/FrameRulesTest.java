package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FrameRulesTest {
    private static final Map<FrameRules.Phase, String> LEGAL = Map.of(
            FrameRules.Phase.MEMBER, "DATA, BROADCAST, SURVIVORS, REUNION, WATCH, STALL, ABORT, LEAVE",
            FrameRules.Phase.REPLACEMENT_WAITING, "ABORT, LEAVE",
            FrameRules.Phase.OPERATION, "DATA, ABORT, LEAVE",
            FrameRules.Phase.WATCHING, "GONE, ABORT, LEAVE",
            FrameRules.Phase.AWAITING_REJOIN, "REJOIN, ABORT, LEAVE");

    /** Every (phase, message type) pair, an unknown type too: legal ones pass, the others name type and phase. */
    @Test
    void everyMessageIsLegalOnlyWhereTheTableSays() throws ProtocolException {
        assertEquals(FrameRules.Phase.values().length, LEGAL.size());
        for (FrameRules.Phase phase : FrameRules.Phase.values()) {
            List<String> legal = List.of(LEGAL.get(phase).split(", "));
            for (byte type = 0; type <= 12; type++) {
                Channel.Frame frame = new Channel.Frame(type, 1, new byte[0]);
                String name = FrameRules.name(type);
                if (legal.contains(name)) {
                    assertSame(frame, FrameRules.check(phase, frame), phase + " " + name);
                } else {
                    ProtocolException e =
                            assertThrows(ProtocolException.class, () -> FrameRules.check(phase, frame), name);
                    assertEquals(
                            "a " + name + " message " + phase.where + ", where only " + LEGAL.get(phase) + " are legal",
                            e.getMessage());
                }
            }
        }
        assertEquals("type 42", FrameRules.name((byte) 42));
    }

    /** A member that sends what only the server sends ends the job, and every rank hears which message and whose. */
    @Test
    void aMemberSendingAMessageOnlyTheServerSendsEndsTheJobNamingIt() throws Exception {
        int port = RankThreadsForTests.freePort();
        String endpoint = "tcp://127.0.0.1:" + port;
        Duration timeout = Duration.ofSeconds(20);
        try (RendezvousServer server = RendezvousServer.start(
                        RendezvousEndpoint.parse(endpoint), 2, RankThreadsForTests.TOKEN, timeout);
                Channel rogue = RankThreadsForTests.authenticatedAs(port, 1, 2)) {
            rogue.send(Channel.GONE, 1, "rank 0 is gone".getBytes(StandardCharsets.UTF_8), Deadline.after(timeout));
            String ended = server.awaitEnd().orElseThrow();
            assertTrue(
                    ended.matches("rank 1 at /127\\.0\\.0\\.1:\\d+ sent a GONE message from a member, where only DATA,"
                            + " BROADCAST, SURVIVORS, REUNION, WATCH, STALL, ABORT, LEAVE are legal .*"),
                    ended);
        }
    }
}
