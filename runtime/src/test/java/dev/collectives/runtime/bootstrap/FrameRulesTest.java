package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.net.ProtocolException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FrameRulesTest {
    private static final Map<FrameRules.Phase, String> LEGAL = Map.of(
            FrameRules.Phase.MEMBER,
                    "DATA, ABORT, LEAVE, STALL, WATCH, REUNION, BROADCAST, SURVIVORS, HEARTBEAT, GROW, UNWATCH, DUMPED",
            FrameRules.Phase.REPLACEMENT_WAITING, "ABORT, LEAVE, HEARTBEAT",
            FrameRules.Phase.JOINER_WAITING, "ABORT, LEAVE, HEARTBEAT, GROW",
            FrameRules.Phase.OPERATION, "DATA, ABORT, LEAVE, HEARTBEAT, FENCED, REFUSED, DUMP",
            FrameRules.Phase.WATCHING, "ABORT, LEAVE, GONE, HEARTBEAT, FENCED, REFUSED, UNWATCH, DUMP",
            FrameRules.Phase.AWAITING_REJOIN, "ABORT, LEAVE, REJOIN, HEARTBEAT, FENCED, REFUSED, DUMP",
            FrameRules.Phase.DUMPER, "ABORT, LEAVE, HEARTBEAT, DUMP",
            FrameRules.Phase.DUMPING, "ABORT, LEAVE, HEARTBEAT, DUMPED");

    /** The answers the server may give each claim of the handshake. */
    private static final Map<FrameRules.Claim, String> ANSWERS = Map.of(
            FrameRules.Claim.JOIN, "ACCEPTED, REJECTED",
            FrameRules.Claim.REPLACE, "ACCEPTED, REJECTED",
            FrameRules.Claim.GROW, "ACCEPTED, REJECTED",
            FrameRules.Claim.FATE, "EXCLUDED, REJECTED",
            FrameRules.Claim.DUMP, "ACCEPTED, REJECTED");

    /** Every (phase, message type) pair: legal ones pass, the others name type, direction and phase. */
    @Test
    void everyMessageIsLegalOnlyWhereTheTableSays() throws ProtocolException {
        assertEquals(FrameRules.Phase.values().length, LEGAL.size());
        for (FrameRules.Phase phase : FrameRules.Phase.values()) {
            List<String> legal = List.of(LEGAL.get(phase).split(", "));
            for (FrameType type : FrameType.values()) {
                Channel.Frame frame = new Channel.Frame(type, 1, new byte[0], null);
                if (legal.contains(type.name())) {
                    assertSame(frame, FrameRules.check(phase, frame), phase + " " + type);
                } else {
                    ProtocolException e =
                            assertThrows(ProtocolException.class, () -> FrameRules.check(phase, frame), type.name());
                    assertEquals(
                            "a " + type + " message " + phase.where + ", where only " + LEGAL.get(phase) + " are legal",
                            e.getMessage());
                }
            }
        }
    }

    /** Each type keeps its wire byte (a member of an older release reads them so), and no two share one. */
    @Test
    void eachTypeHasItsOwnWireByte() {
        assertEquals(
                "DATA=1, ABORT=2, LEAVE=3, STALL=4, GONE=5, REJOIN=6, WATCH=7, REUNION=8, BROADCAST=9, SURVIVORS=10, "
                        + "HEARTBEAT=11, FENCED=12, REFUSED=13, GROW=14, UNWATCH=15, DUMP=16, DUMPED=17",
                Arrays.stream(FrameType.values()).map(t -> t + "=" + t.wire).collect(Collectors.joining(", ")));
        for (FrameType type : FrameType.values()) {
            assertSame(type, FrameType.ofWire(type.wire));
        }
        assertNull(FrameType.ofWire((byte) 0));
        assertNull(FrameType.ofWire((byte) 42));
    }

    /** The messages that report a failure are the ones that carry a cause; the others' bounds are their layouts. */
    @Test
    void theFailuresCarryACauseAndTheOthersTheirLayout() {
        assertEquals(
                List.of(FrameType.ABORT, FrameType.STALL, FrameType.GONE, FrameType.FENCED, FrameType.REFUSED),
                Arrays.stream(FrameType.values())
                        .filter(FrameType::reportsFailure)
                        .toList());
        assertEquals(Long.BYTES, FrameType.REUNION.maxBytes(7));
        assertEquals(Long.BYTES + Integer.BYTES, FrameType.GROW.maxBytes(7));
        assertEquals(Integer.BYTES + Progress.MAX_BYTES, FrameType.HEARTBEAT.maxBytes(7));
        assertEquals(Integer.BYTES, FrameType.HEARTBEAT.minBytes());
        assertEquals(7, FrameType.DATA.maxBytes(7));
        assertEquals(0, FrameType.WATCH.maxBytes(7));
        assertTrue(FrameType.GROW.fixedLength());
        assertFalse(FrameType.HEARTBEAT.fixedLength());
        assertFalse(FrameType.DATA.fixedLength());
    }

    /** A cause travels whole: its kind, the ranks at fault, its text; a text past the limit is cut. */
    @Test
    void aCauseTravelsWithItsKindAndRanks() throws ProtocolException {
        Cause verdict = Cause.of(Cause.Kind.NEVER_ARRIVED, "ranks [1, 2] did not arrive", 1, 2);
        assertEquals(verdict, Cause.read(verdict.bytes()));
        Cause long_ = Cause.of(Cause.Kind.ABORTED, "x".repeat(Rendezvous.MAX_REASON_BYTES + 10), 3);
        Cause read = Cause.read(long_.bytes());
        assertEquals(Rendezvous.MAX_REASON_BYTES, read.text().length());
        assertTrue(read.text().endsWith("..."));
        byte[] bytes = verdict.bytes();
        bytes[0] = (byte) Cause.Kind.values().length;
        assertEquals(
                "a failure of unknown kind " + Cause.Kind.values().length,
                assertThrows(ProtocolException.class, () -> Cause.read(bytes)).getMessage());
        byte[] tooMany = verdict.bytes();
        tooMany[4] = 9; // nine ranks claimed, two sent
        assertThrows(ProtocolException.class, () -> Cause.read(tooMany));
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
            rogue.send(
                    FrameType.GONE,
                    1,
                    Cause.of(Cause.Kind.DIED, "rank 0 is gone", 0).bytes(),
                    Deadline.after(timeout));
            Channel.Frame fenced = rogue.receiveNews();
            assertEquals(FrameType.FENCED, fenced.type());
            assertTrue(
                    fenced.cause()
                            .text()
                            .startsWith("rank 1 was excluded from the job at " + endpoint
                                    + ": it sent a GONE message from a member, where only DATA, ABORT, LEAVE, STALL,"
                                    + " WATCH, REUNION, BROADCAST, SURVIVORS, HEARTBEAT, GROW, UNWATCH, DUMPED are"
                                    + " legal"),
                    fenced.cause().text());
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
