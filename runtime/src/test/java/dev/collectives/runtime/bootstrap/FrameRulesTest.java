package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.RendezvousEndpoint;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FrameRulesTest {
    private static final Map<FrameRules.Phase, String> LEGAL = Map.of(
            FrameRules.Phase.MEMBER,
                    "DATA, BROADCAST, SURVIVORS, REUNION, GROW, WATCH, UNWATCH, STALL, ABORT, LEAVE, HEARTBEAT",
            FrameRules.Phase.REPLACEMENT_WAITING, "ABORT, LEAVE, HEARTBEAT",
            FrameRules.Phase.JOINER_WAITING, "GROW, ABORT, LEAVE, HEARTBEAT",
            FrameRules.Phase.OPERATION, "DATA, ABORT, LEAVE, HEARTBEAT, FENCED, REFUSED",
            FrameRules.Phase.WATCHING, "GONE, UNWATCH, ABORT, LEAVE, HEARTBEAT, FENCED, REFUSED",
            FrameRules.Phase.AWAITING_REJOIN, "REJOIN, ABORT, LEAVE, HEARTBEAT, FENCED, REFUSED");

    /** The answers the server may give each claim of the handshake. */
    private static final Map<FrameRules.Claim, String> ANSWERS = Map.of(
            FrameRules.Claim.JOIN, "ACCEPTED, REJECTED",
            FrameRules.Claim.REPLACE, "ACCEPTED, REJECTED",
            FrameRules.Claim.GROW, "ACCEPTED, REJECTED",
            FrameRules.Claim.FATE, "EXCLUDED, REJECTED");

    /** Every (phase, message type) pair, an unknown type too: legal ones pass, the others name type and phase. */
    @Test
    void everyMessageIsLegalOnlyWhereTheTableSays() throws ProtocolException {
        assertEquals(FrameRules.Phase.values().length, LEGAL.size());
        for (FrameRules.Phase phase : FrameRules.Phase.values()) {
            List<String> legal = List.of(LEGAL.get(phase).split(", "));
            for (byte type = 0; type <= 14; type++) {
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

    /** Every (claim, answer) pair, an unknown answer too: legal ones pass, the others name the answer and the claim. */
    @Test
    void everyAnswerIsLegalOnlyToTheClaimsTheTableSays() throws ProtocolException {
        assertEquals(FrameRules.Claim.values().length, ANSWERS.size());
        for (FrameRules.Claim claim : FrameRules.Claim.values()) {
            List<String> legal = List.of(ANSWERS.get(claim).split(", "));
            for (byte answer = 0; answer <= 3; answer++) {
                String name = FrameRules.answerName(answer);
                byte given = answer;
                if (legal.contains(name)) {
                    assertEquals(answer, FrameRules.checkAnswer(claim, answer), claim + " " + name);
                } else {
                    ProtocolException e = assertThrows(
                            ProtocolException.class, () -> FrameRules.checkAnswer(claim, given), claim + " " + name);
                    assertEquals(
                            "an answer " + name + " to a \"" + claim.word + "\" claim, where only " + ANSWERS.get(claim)
                                    + " are legal",
                            e.getMessage());
                }
            }
        }
        assertEquals("answer 7", FrameRules.answerName((byte) 7));
    }

    /**
     * A member that sends what only the server sends is excluded, not the end of the job: the others hear of it as of
     * a death that names the message, and it hears why.
     */
    @Test
    void aMemberSendingAMessageOnlyTheServerSendsIsExcludedNamingIt() throws Exception {
        int port = RankThreadsForTests.freePort();
        String endpoint = "tcp://127.0.0.1:" + port;
        Duration timeout = Duration.ofSeconds(20);
        try (JobServer server =
                        JobServer.start(RendezvousEndpoint.parse(endpoint), 2, RankThreadsForTests.TOKEN, timeout);
                Channel rogue = RankThreadsForTests.authenticatedAs(port, 1, 2);
                Channel other = RankThreadsForTests.authenticatedAs(port, 0, 2)) {
            server.awaitJoined(); // a member's death before every rank joined ends the job instead
            rogue.send(Channel.GONE, 1, "rank 0 is gone".getBytes(StandardCharsets.UTF_8), Deadline.after(timeout));
            Channel.Frame fenced = rogue.receiveNews();
            assertEquals(Channel.FENCED, fenced.type());
            assertTrue(
                    fenced.text()
                            .startsWith("rank 1 was excluded from the job at " + endpoint
                                    + ": it sent a GONE message from a member, where only DATA, BROADCAST, SURVIVORS,"
                                    + " REUNION, GROW, WATCH, UNWATCH, STALL, ABORT, LEAVE, HEARTBEAT are legal"),
                    fenced.text());
            assertEquals(1, server.deaths().size(), server.deaths().toString());
            assertTrue(
                    server.deaths()
                            .get(0)
                            .matches("rank 1 at /127\\.0\\.0\\.1:\\d+ is gone: it sent a GONE message .*"),
                    server.deaths().get(0));
            assertTrue(server.exclusion(1).startsWith("rank 1 was excluded"), server.exclusion(1));
        }
    }
}
