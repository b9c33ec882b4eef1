package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.await;
import static dev.collectives.runtime.bootstrap.RankThreadsForTests.memberOfServer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Processes started to join a running job come to its TCP rendezvous, hold the numbers after the job's ranks, and
 * are taken in where the members grow the job; what a growth cannot do it refuses with the reason, and the job goes
 * on at its size.
 */
class GrowRendezvousTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final int port = RankThreadsForTests.freePort();
    private final String endpoint = "tcp://127.0.0.1:" + port;
    private JobServer server;

    private JobServer serve(int size, Duration heartbeatTimeout) {
        server = JobServer.start(
                RendezvousEndpoint.parse(endpoint), size, RankThreadsForTests.TOKEN, TIMEOUT, heartbeatTimeout);
        return server;
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private Bootstrap joiner(String token) {
        return Bootstrap.builder()
                .rendezvous(endpoint)
                .timeout(TIMEOUT)
                .jobToken(token)
                .option("rendezvousServer", "standalone")
                .option("joining", "1")
                .build();
    }

    private static String gathered(Rendezvous rendezvous) {
        byte[][] all = rendezvous.allGather(new byte[] {(byte) (10 + rendezvous.rank())});
        List<Integer> values = new ArrayList<>();
        Arrays.stream(all).forEach(value -> values.add((int) value[0]));
        return "size " + rendezvous.size() + ", gathered " + values;
    }

    @Test
    void twoMembersTakeInTwoProcessesThatJoinAndGatherAmongFour() {
        serve(2, JobServer.DEFAULT_HEARTBEAT_TIMEOUT);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(4, thread -> () -> {
            if (thread >= 2) {
                try (Rendezvous joining = joiner(RankThreadsForTests.TOKEN).rendezvous()) {
                    assertTrue(joining.joining());
                    assertEquals(4, joining.grow(0, TIMEOUT));
                    return "rank " + joining.rank() + ": " + gathered(joining);
                }
            }
            try (Rendezvous member =
                    memberOfServer(endpoint, thread, 2, TIMEOUT).build().rendezvous()) {
                assertFalse(member.joining());
                assertEquals(4, member.grow(2, TIMEOUT));
                return "rank " + member.rank() + ": " + gathered(member);
            }
        });
        List<String> seen = new ArrayList<>();
        outcomes.forEach(outcome -> seen.add(outcome.get()));
        seen.sort(String::compareTo);
        assertEquals(
                List.of(
                        "rank 0: size 4, gathered [10, 11, 12, 13]",
                        "rank 1: size 4, gathered [10, 11, 12, 13]",
                        "rank 2: size 4, gathered [10, 11, 12, 13]",
                        "rank 3: size 4, gathered [10, 11, 12, 13]"),
                seen);
    }

    @Test
    void watchingMembersStopWatchingGrowTheJobAndWatchItAgainHearingNothingOfTheirOwnWatchsEnd() {
        serve(2, JobServer.DEFAULT_HEARTBEAT_TIMEOUT);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, thread -> () -> {
            if (thread == 2) {
                try (Rendezvous joining = joiner(RankThreadsForTests.TOKEN).rendezvous()) {
                    joining.grow(0, TIMEOUT);
                    return "rank " + joining.rank() + ": " + gathered(joining);
                }
            }
            try (Rendezvous member =
                    memberOfServer(endpoint, thread, 2, TIMEOUT).build().rendezvous()) {
                List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
                assertTrue(member.watch(cause -> heard.add(cause.text())));
                assertEquals(Optional.empty(), member.unwatch());
                member.grow(1, TIMEOUT);
                String outcome = "rank " + member.rank() + ": " + gathered(member);
                assertTrue(member.watch(cause -> heard.add(cause.text())));
                assertEquals(List.of(), heard);
                return outcome;
            }
        });
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(
                    "rank " + rank + ": size 3, gathered [10, 11, 12]",
                    outcomes.get(rank).get(),
                    "rank " + rank);
        }
    }

    /**
     * A job of 4 whose rank 2 died: its survivors met (as they do to shrink it away) and watch again, then grow the job
     * by 1. The process that joins takes the job's number after its highest, 4; the live ranks meet as ranks 0 to 3.
     */
    @Test
    void aJobThatLostARankGrowsAndTheJoinerTakesTheNumberAfterTheJobsHighest() {
        serve(4, JobServer.DEFAULT_HEARTBEAT_TIMEOUT);
        CountDownLatch watching = new CountDownLatch(3);
        CountDownLatch watchingAgain = new CountDownLatch(3);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(5, thread -> () -> {
            if (thread == 2) {
                try (Socket doomed = RankThreadsForTests.admittedAs(port, 2, 4)) {
                    await(watching); // then its connection ends unsaid
                }
                return "gone";
            }
            if (thread == 4) {
                await(watchingAgain);
                try (Rendezvous joining = joiner(RankThreadsForTests.TOKEN).rendezvous()) {
                    assertEquals(5, joining.grow(0, TIMEOUT));
                    return "job's rank " + joining.rank() + ": " + gatheredAmongTheLive(joining);
                }
            }
            try (Rendezvous member =
                    memberOfServer(endpoint, thread, 4, TIMEOUT).build().rendezvous()) {
                BlockingQueue<String> heard = new LinkedBlockingQueue<>();
                assertTrue(member.watch(cause -> heard.offer(cause.text())));
                watching.countDown();
                String death = heard.poll(60, TimeUnit.SECONDS);
                assertTrue(death != null && death.startsWith("rank 2 at "), death);
                assertEquals(Optional.empty(), member.resumeAmongSurvivors());
                assertTrue(member.watch(
                        cause -> heard.offer(cause.text()))); // the survivors' communicator watches the job
                watchingAgain.countDown();
                server.awaitJoining(1);
                assertEquals(Optional.empty(), member.unwatch());
                assertEquals(5, member.grow(1, TIMEOUT));
                return "job's rank " + member.rank() + ": " + gatheredAmongTheLive(member);
            }
        });
        for (int rank : new int[] {0, 1, 3, 4}) {
            int here = rank < 2 ? rank : rank - 1;
            assertEquals(
                    "job's rank " + rank + ": rank " + here + " of 4, the job's [0, 1, 3, 4], gathered [10, 11, 12,"
                            + " 13]",
                    outcomes.get(rank).get(),
                    "rank " + rank);
        }
    }

    private static String gatheredAmongTheLive(Rendezvous job) {
        AmongSurvivors live = AmongSurvivors.of(job);
        byte[][] all = live.allGather(new byte[] {(byte) (10 + live.rank())});
        List<Integer> values = new ArrayList<>();
        Arrays.stream(all).forEach(value -> values.add((int) value[0]));
        return "rank " + live.rank() + " of " + live.size() + ", the job's " + Arrays.toString(live.jobRanks())
                + ", gathered " + values;
    }

    @Test
    void aProcessWithAWrongTokenIsTurnedAwayWithTheReason() {
        serve(2, JobServer.DEFAULT_HEARTBEAT_TIMEOUT);
        BootstrapException e = assertThrows(
                BootstrapException.class,
                () -> joiner("another-job-token-0123456789abcdef").rendezvous());
        assertTrue(
                e.getMessage()
                        .matches(".*the rendezvous server at " + endpoint.replace(".", "\\.") + " turned away a"
                                + " process that joins the job: a connection from /127\\.0\\.0\\.1:\\d+ that joins the running"
                                + " job presented a wrong job token"),
                e.getMessage());
    }

    @Test
    void aProcessBeyondThoseAskedForIsTurnedAwaySayingSoAndTheJobGrowsByTheOthers() {
        serve(2, JobServer.DEFAULT_HEARTBEAT_TIMEOUT);
        CountDownLatch admitted = new CountDownLatch(3);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(5, thread -> () -> {
            if (thread >= 2) {
                try (Rendezvous joining = joiner(RankThreadsForTests.TOKEN).rendezvous()) {
                    admitted.countDown();
                    try {
                        joining.grow(0, TIMEOUT);
                    } catch (BootstrapException refused) {
                        return "rank " + joining.rank() + " refused: " + refused.getMessage();
                    }
                    return "rank " + joining.rank() + ": " + gathered(joining);
                }
            }
            await(admitted);
            server.awaitJoining(3);
            try (Rendezvous member =
                    memberOfServer(endpoint, thread, 2, TIMEOUT).build().rendezvous()) {
                return "rank " + member.rank() + " grew to " + member.grow(2, TIMEOUT) + ": " + gathered(member);
            }
        });
        List<String> seen = new ArrayList<>();
        outcomes.forEach(outcome -> seen.add(outcome.get()));
        seen.sort(String::compareTo);
        assertEquals("rank 0 grew to 4: size 4, gathered [10, 11, 12, 13]", seen.get(0));
        assertEquals("rank 1 grew to 4: size 4, gathered [10, 11, 12, 13]", seen.get(1));
        assertEquals("rank 2: size 4, gathered [10, 11, 12, 13]", seen.get(2));
        assertEquals("rank 3: size 4, gathered [10, 11, 12, 13]", seen.get(3));
        assertTrue(
                seen.get(4)
                        .startsWith("rank 4 refused: [bootstrap] rank 4: the job at " + endpoint + " grew by the 2"
                                + " processes it asked for, which came first; this one came beyond them"),
                seen.get(4));
    }

    @Test
    void fewerProcessesThanAskedForFailTheGrowthOnEveryMemberNamingHowManyCameAndTheJobGoesOn() {
        serve(2, JobServer.DEFAULT_HEARTBEAT_TIMEOUT);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, thread -> () -> {
            if (thread == 2) {
                try (Rendezvous joining = joiner(RankThreadsForTests.TOKEN).rendezvous()) {
                    return joining.grow(0, TIMEOUT) + "";
                }
            }
            server.awaitJoining(1);
            try (Rendezvous member =
                    memberOfServer(endpoint, thread, 2, TIMEOUT).build().rendezvous()) {
                BootstrapException failed = assertThrows(
                        BootstrapException.class, () -> member.grow(2, Duration.ofMillis(thread == 0 ? 300 : 20_000)));
                return failed.getMessage() + " | then " + gathered(member);
            }
        });
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(
                    "[bootstrap] rank " + rank + ": growth #1 asked for 2 processes to join, 1 came to " + endpoint
                            + " within 300 ms; the job goes on with its 2 ranks | then size 2, gathered [10, 11]",
                    outcomes.get(rank).get(),
                    "rank " + rank);
        }
        assertTrue(
                outcomes.get(2)
                        .message()
                        .contains("the growth of the job at " + endpoint + " failed: growth #1 asked for 2 processes"
                                + " to join, 1 came"),
                outcomes.get(2).message());
    }

    @Test
    void aProcessThatDiesDuringTheGrowthFailsItOnEveryMemberAndTheJobGoesOn() throws Exception {
        serve(2, JobServer.DEFAULT_HEARTBEAT_TIMEOUT);
        RankThreadsForTests.Joiner doomed = RankThreadsForTests.authenticatedAsJoiner(port);
        assertEquals(2, doomed.number());
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, thread -> () -> {
            if (thread == 2) {
                server.awaitWaitingFor(2); // it was told where it joins, and the growth waits for its message
                doomed.channel().close();
                return "died";
            }
            try (Rendezvous member =
                    memberOfServer(endpoint, thread, 2, TIMEOUT).build().rendezvous()) {
                BootstrapException failed = assertThrows(BootstrapException.class, () -> member.grow(1, TIMEOUT));
                return failed.getMessage() + " | then " + gathered(member);
            }
        });
        for (int rank = 0; rank < 2; rank++) {
            String outcome = outcomes.get(rank).get();
            assertTrue(
                    outcome.startsWith("[bootstrap] rank " + rank + ": the process that joins as rank 2 did not take"
                            + " part: rank 2 at /127.0.0.1:"),
                    outcome);
            assertTrue(outcome.contains(" is gone: its connection ended before the job grew"), outcome);
            assertTrue(
                    outcome.endsWith("; the job goes on with its 2 ranks | then size 2, gathered [10, 11]"), outcome);
        }
    }

    @Test
    void aProcessWaitingToJoinIsWatchedByHeartbeatsAndAFrozenOneIsDeclaredDead() throws Exception {
        serve(2, Duration.ofSeconds(2));
        RankThreadsForTests.Joiner frozen = RankThreadsForTests.authenticatedAsJoiner(port);
        server.awaitJoining(1);
        Channel.Frame frame;
        do {
            frame = frozen.channel().receiveAny();
        } while (frame.type() == FrameType.HEARTBEAT);
        assertEquals(FrameType.FENCED, frame.type());
        assertTrue(
                frame.cause()
                        .text()
                        .startsWith("rank 2 was excluded from the job at " + endpoint + ": no heartbeat for 2 s"),
                frame.cause().text());
        server.awaitJoining(0);
        RankThreadsForTests.Joiner next = RankThreadsForTests.authenticatedAsJoiner(port);
        assertEquals(2, next.number(), "the frozen process's number is free for the next");
        next.channel().close();
    }
}
