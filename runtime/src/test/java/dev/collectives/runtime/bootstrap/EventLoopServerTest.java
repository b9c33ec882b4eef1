package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.server.ServerConnection;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A job's server serves every member from one thread: however many members join, its threads stay as they are; a
 * member that stops reading holds up no other member and is excluded naming why; a replacement starts with nothing
 * of its predecessor's, its exclusion least of all.
 */
class EventLoopServerTest {
    private static final Duration LONG = Duration.ofSeconds(60);

    private final int port = RankThreadsForTests.freePort();
    private final RendezvousEndpoint endpoint = RendezvousEndpoint.parse("tcp://127.0.0.1:" + port);

    /** A server whose members (these connections never beat) are not declared dead for their silence. */
    private JobServer serve(int size) {
        return JobServer.start(endpoint, size, RankThreadsForTests.TOKEN, LONG, LONG);
    }

    @Test
    void sixtyFourMembersAreServedByTheServersOneThread() throws Exception {
        int size = 64;
        List<Channel> members = new ArrayList<>();
        try (JobServer server = serve(size)) {
            for (int rank = 0; rank < size; rank++) {
                members.add(RankThreadsForTests.authenticatedAs(port, rank, size));
            }
            server.awaitJoined();
            for (int rank = 0; rank < size; rank++) {
                members.get(rank).send(FrameType.DATA, 1, new byte[] {(byte) rank}, Deadline.after(LONG));
            }
            for (Channel member : members) {
                Channel.Frame answer = member.receive(1, Channel.gatheredBytes(size), Deadline.after(LONG));
                byte[][] values = Channel.readGathered(answer.bytes(), size).values();
                assertEquals(size, values.length);
                assertArrayEquals(new byte[] {(byte) (size - 1)}, values[size - 1]);
            }
            List<String> serving = Thread.getAllStackTraces().keySet().stream()
                    .map(Thread::getName)
                    .filter(name -> name.equals("collectives-rendezvous-server " + endpoint)
                            || name.startsWith("collectives-bootstrap-handshake"))
                    .toList();
            assertEquals(List.of("collectives-rendezvous-server " + endpoint), serving);
        } finally {
            members.forEach(Channel::close);
        }
    }

    @Test
    void aMemberThatStopsReadingHoldsUpNoOtherMember() throws Exception {
        byte[] value = new byte[Rendezvous.MAX_VALUE_BYTES];
        try (JobServer server = serve(3);
                Channel deaf = RankThreadsForTests.authenticatedAs(port, 0, 3);
                Channel reader = RankThreadsForTests.authenticatedAs(port, 1, 3);
                Channel ending = RankThreadsForTests.authenticatedAs(port, 2, 3)) {
            server.awaitJoined();
            // enough answers to fill what the system buffers for the member that reads none, and fewer than the
            // server queues for it before it declares it is not reading
            for (int operation = 1; operation <= 40; operation++) {
                for (Channel member : List.of(deaf, reader, ending)) {
                    member.send(FrameType.DATA, operation, value, Deadline.after(LONG));
                }
                for (Channel member : List.of(reader, ending)) {
                    Channel.Frame answer = member.receive(operation, Channel.gatheredBytes(3), Deadline.after(LONG));
                    assertEquals(FrameType.DATA, answer.type(), "operation " + operation + ": " + answer.cause());
                    assertEquals(3, Channel.readGathered(answer.bytes(), 3).values().length);
                }
            }
            ending.send(
                    FrameType.ABORT,
                    40,
                    Cause.of(Cause.Kind.ABORTED, "its work failed", 2).bytes(),
                    Deadline.after(LONG));
            Channel.Frame heard = reader.receive(41, Channel.gatheredBytes(3), Deadline.after(LONG));
            assertEquals(FrameType.ABORT, heard.type());
            assertArrayEquals(new int[] {2}, heard.cause().ranks());
            assertTrue(
                    heard.cause().text().endsWith("ended the job: its work failed"),
                    heard.cause().text());
        }
    }

    @Test
    void aMemberWhoseQueuePassesItsBoundIsExcludedAsNotReading() throws Exception {
        byte[] value = new byte[Rendezvous.MAX_VALUE_BYTES];
        try (JobServer server = serve(2);
                Channel reader = RankThreadsForTests.authenticatedAs(port, 0, 2);
                Channel deaf = RankThreadsForTests.authenticatedAs(port, 1, 2)) {
            server.awaitJoined();
            Channel.Frame heard = null;
            boolean deafConnected = true;
            for (int operation = 1; heard == null && operation <= 10_000; operation++) {
                try {
                    if (deafConnected) {
                        deaf.send(FrameType.DATA, operation, value, Deadline.after(LONG));
                    }
                } catch (IOException e) {
                    deafConnected = false; // the server excluded it and closed its connection: the others hear why
                }
                reader.send(FrameType.DATA, operation, value, Deadline.after(LONG));
                Channel.Frame answer = reader.receive(operation, Channel.gatheredBytes(2), Deadline.after(LONG));
                heard = answer.type() == FrameType.DATA ? null : answer;
            }
            assertEquals(FrameType.ABORT, heard.type());
            assertArrayEquals(new int[] {1}, heard.cause().ranks());
            assertTrue(
                    heard.cause()
                            .text()
                            .contains("is gone: it did not read what the server sent it: "
                                    + ServerConnection.MAX_QUEUED_FRAMES + " messages waited for it (it stopped "
                                    + "reading)"),
                    heard.cause().text());
            assertTrue(RankThreadsForTests.fate(port, 1, 2).startsWith("excluded: rank 1 was excluded from the job"));
        }
    }

    @Test
    void aReplacementThatAsksItsFateHearsNothingOfItsPredecessorsExclusion() throws Exception {
        try (JobServer server = serve(2);
                Channel survivor = RankThreadsForTests.authenticatedAs(port, 0, 2);
                Channel rogue = RankThreadsForTests.authenticatedAs(port, 1, 2)) {
            server.awaitJoined();
            rogue.send(
                    FrameType.GONE,
                    0,
                    Cause.of(Cause.Kind.DIED, "rank 0 is gone", 0).bytes(),
                    Deadline.after(LONG));
            assertEquals(FrameType.FENCED, rogue.receiveNews().type());
            String predecessors = RankThreadsForTests.fate(port, 1, 2);
            assertTrue(predecessors.startsWith("excluded: rank 1 was excluded from the job"), predecessors);
            try (Channel replacement = RankThreadsForTests.authenticatedAs(port, 1, 2, FrameRules.Claim.REPLACE)) {
                assertEquals("not excluded: rank 1 was not excluded", RankThreadsForTests.fate(port, 1, 2));
                assertEquals(1, server.deaths().size(), server.deaths().toString());
                assertTrue(
                        server.deaths().get(0).contains("is gone: it sent a GONE message"),
                        server.deaths().get(0));
            }
        }
    }
}
