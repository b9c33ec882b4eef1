package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Heartbeats between a {@link JobServer} and its members: a member that sends nothing, or heartbeats for
 * another rank, is declared dead (every watcher hears it, named) and excluded (it hears why, and so does a process
 * that asks again); living members whose cores are all busy are not.
 */
class HeartbeatTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration SHORT_HEARTBEAT = Duration.ofSeconds(1);

    private final int port = RankThreadsForTests.freePort();
    private final String endpoint = "tcp://127.0.0.1:" + port;

    private Bootstrap.Builder rank(int rank) {
        return RankThreadsForTests.memberOfServer(endpoint, rank, 3, TIMEOUT);
    }

    @Test
    void aSilentMemberIsNamedToEverySurvivorAndExcluded() throws Exception {
        String heard = silentOrLying(silent -> {}, "no heartbeat for 1 s while the job ran");
        assertTrue(heard.endsWith("is gone: no heartbeat for 1 s while the job ran"), heard);
    }

    @Test
    void aMemberThatBeatsForAnotherRankIsNamedToEverySurvivorAndExcluded() throws Exception {
        silentOrLying(
                liar -> liar.send(FrameType.HEARTBEAT, 0, JobToken.ints(2), Deadline.after(TIMEOUT)),
                "it sent heartbeats for rank 2 while the job ran");
    }

    /**
     * Ranks 0 and 2 join and watch; rank 1 joins last, a bare connection that does what {@code rankOne} makes it do
     * and then nothing. Checks that the survivors hear of rank 1's death for {@code why}, meet without it, and that rank 1
     * was told it was excluded, as is a process that asks for rank 1 afterwards; returns what the survivors heard.
     */
    private String silentOrLying(IoAction rankOne, String why) throws Exception {
        try (JobServer server = JobServer.start(
                RendezvousEndpoint.parse(endpoint), 3, RankThreadsForTests.TOKEN, TIMEOUT, SHORT_HEARTBEAT)) {
            String exclusion = "rank 1 was excluded from the job at " + endpoint + ": "
                    + why.replace(" while the job ran", "") + "; only a replacement may take its place";
            CountDownLatch joined = new CountDownLatch(2);
            List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
                if (rank == 1) { // last, so that the job has formed when it goes silent
                    await(joined);
                    Channel member = RankThreadsForTests.authenticatedAs(port, 1, 3);
                    rankOne.run(member);
                    return excludedAs(member);
                }
                try (Rendezvous survivor = rank(rank).build().rendezvous()) {
                    joined.countDown();
                    BlockingQueue<String> heard = new ArrayBlockingQueue<>(1);
                    assertTrue(survivor.watch(cause -> heard.offer(cause.text())));
                    String death = heard.poll(60, TimeUnit.SECONDS);
                    assertEquals(Optional.empty(), survivor.resumeAmongSurvivors());
                    Rendezvous.Survivors survivors = survivor.allGatherOfSurvivors(new byte[] {(byte) rank});
                    assertNull(survivors.values()[1]);
                    assertEquals(death, survivors.goneReasons()[1]);
                    return death;
                }
            });
            assertEquals(exclusion, outcomes.get(1).get());
            String heard = outcomes.get(0).get();
            assertTrue(heard.startsWith("rank 1 at /127.0.0.1:") && heard.endsWith("is gone: " + why), heard);
            assertEquals(heard, outcomes.get(2).get());
            assertEquals(List.of(heard), server.deaths());
            assertEquals("excluded: " + exclusion, RankThreadsForTests.fate(port, 1, 3));
            assertEquals("not excluded: rank 2 was not excluded", RankThreadsForTests.fate(port, 2, 3));
            return heard;
        }
    }

    /** What the server told {@code member} when it excluded it, after which its connection ended. */
    private static String excludedAs(Channel member) throws IOException {
        try (member) {
            Channel.Frame frame = member.receiveNews();
            assertEquals(FrameType.FENCED, frame.type());
            try {
                member.receiveAny();
                throw new AssertionError("the connection of an excluded member stayed open");
            } catch (EOFException | java.net.SocketException expected) {
                return frame.cause().text();
            }
        }
    }

    /**
     * Three ranks with the default heartbeat timeout compute (spin) between two operations for longer than it, while
     * twice as many threads as cores spin too: none is declared dead, and the second operation gives every value.
     */
    @Test
    void livingRanksWhoseCoresAreAllBusyAreNeverDeclaredDeadWithTheDefault() throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
            Thread spinner = new Thread(() -> spin(done));
            spinner.setDaemon(true);
            spinner.start();
            spinners.add(spinner);
        }
        try (JobServer server =
                JobServer.start(RendezvousEndpoint.parse(endpoint), 3, RankThreadsForTests.TOKEN, TIMEOUT)) {
            long busy = JobServer.DEFAULT_HEARTBEAT_TIMEOUT.toNanos()
                    + 2 * Timeouts.withDefaultHeartbeat(TIMEOUT).beatInterval().toNanos();
            List<RankThreadsForTests.Outcome<Integer>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
                try (Rendezvous rendezvous = rank(rank).build().rendezvous()) {
                    rendezvous.allGather(new byte[] {(byte) rank});
                    long until = System.nanoTime() + busy;
                    long work = 0;
                    while (System.nanoTime() < until) {
                        work++; // this rank computes, sending nothing of its own
                    }
                    byte[][] all = rendezvous.allGather(new byte[] {(byte) (work > 0 ? rank : -1)});
                    return all[0][0] + all[1][0] + all[2][0];
                }
            });
            for (RankThreadsForTests.Outcome<Integer> outcome : outcomes) {
                assertEquals(3, outcome.get());
            }
            assertEquals(Optional.empty(), server.awaitEnd());
            assertEquals(List.of(), server.deaths());
        } finally {
            done.set(true);
            for (Thread spinner : spinners) {
                spinner.join();
            }
        }
    }

    private static void spin(AtomicBoolean done) {
        while (!done.get()) {
            Thread.onSpinWait();
        }
    }

    /** A step of a bare member's I/O. */
    @FunctionalInterface
    private interface IoAction {
        void run(Channel member) throws IOException;
    }
}
