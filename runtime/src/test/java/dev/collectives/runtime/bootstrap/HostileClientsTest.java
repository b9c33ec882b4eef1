package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.bootstrap.RankThreadsForTests.Outcome;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rank 0 of a TCP rendezvous under connections that are not ranks (idle, trickling one byte at a time, garbage;
 * more of them than it handshakes with at once), and ranks that fail, leave or come late: the job forms or fails
 * on every rank at once, naming the rank at fault.
 */
class HostileClientsTest {
    private static final Duration GENEROUS = RendezvousContractTest.GENEROUS;
    /** How long rank 0 gives one connection's handshake. */
    private static final Duration HANDSHAKE_LIMIT = Duration.ofSeconds(5);

    private final int port = RankThreadsForTests.freePort();
    private final String endpoint = "tcp://127.0.0.1:" + port;
    private final List<Socket> hostile = new ArrayList<>();

    @AfterEach
    void closeHostileConnections() throws IOException {
        for (Socket s : hostile) {
            s.close();
        }
    }

    @Test
    void idleTricklingAndGarbageConnectionsNeitherDelayNorBlockTheRanksAndEachIsDroppedAtItsDeadline()
            throws Exception {
        int idle = TcpAdmission.MAX_HANDSHAKES + 36;
        // ranks 0..2 of the job, and (index 3) someone who opens the hostile connections before ranks 1 and 2 come
        List<Outcome<byte[][]>> outcomes = RankThreadsForTests.run(4, index -> () -> {
            if (index == 3) {
                openHostileConnections(idle);
                return null;
            }
            if (index > 0) {
                awaitHostile(idle + 20);
            }
            try (Rendezvous rendezvous = bootstrap(endpoint, index, 3, GENEROUS).rendezvous()) {
                return rendezvous.allGather(new byte[] {(byte) index});
            }
        });
        for (Outcome<byte[][]> outcome : outcomes.subList(0, 3)) {
            assertArrayEquals(new byte[][] {{0}, {1}, {2}}, outcome.get());
        }
        for (Outcome<byte[][]> outcome : outcomes.subList(1, 3)) {
            // serving the hostile connections one after another would have taken HANDSHAKE_LIMIT each
            assertTrue(outcome.millis() < HANDSHAKE_LIMIT.toMillis(), "took " + outcome.millis() + " ms");
        }
        outcomes.get(3).get();
        for (Socket s : hostile) {
            assertClosedByRankZeroWithin(s, HANDSHAKE_LIMIT.plusSeconds(3));
        }
    }

    private void openHostileConnections(int idle) throws IOException, InterruptedException {
        Random random = new Random(7);
        awaitListening();
        for (int i = 0; i < idle; i++) {
            connect();
        }
        for (int i = 0; i < 10; i++) {
            byte[] garbage = new byte[1 + random.nextInt(200)];
            random.nextBytes(garbage);
            connect().getOutputStream().write(garbage);
        }
        for (int i = 0; i < 10; i++) {
            trickle(connect());
        }
    }

    private void awaitListening() throws InterruptedException {
        long end = System.nanoTime() + GENEROUS.toNanos();
        while (true) {
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException e) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("rank 0 never listened at port " + port, e);
                }
                Thread.sleep(20);
            }
        }
    }

    @Test
    void aMemberThatFindsNothingListeningSaysItWasRefused() {
        BootstrapException e = assertThrows(BootstrapException.class,
                () -> bootstrap(endpoint, 1, 2, Duration.ofMillis(800)).rendezvous());
        assertTrue(e.getMessage().contains("rank 1: no rank 0 at " + endpoint + " within 800 ms: refused ")
                && e.getMessage().contains("nothing listens there"), e.getMessage());
    }

    @Test
    void aMemberWhoseConnectionIsAcceptedButNeverGreetedSaysRankZeroNeverAnswered() throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String there = "tcp://127.0.0.1:" + silent.getLocalPort();
            BootstrapException e = assertThrows(BootstrapException.class,
                    () -> bootstrap(there, 1, 2, Duration.ofMillis(800)).rendezvous());
            assertTrue(e.getMessage().contains("no rank 0 at " + there + " within 800 ms: never answered: 1 "
                    + "connection was accepted but not greeted in time"), e.getMessage());
        }
    }

    @Test
    void aRankArrivingAfterTheJobEndedIsToldSoAtOnce() {
        Duration brief = Duration.ofMillis(1000);
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            if (rank == 0) {
                return bootstrap(endpoint, 0, 2, brief).rendezvous();
            }
            Thread.sleep(brief.toMillis() + 500);
            return bootstrap(endpoint, 1, 2, GENEROUS).rendezvous();
        });
        assertTrue(outcomes.get(0).message().contains("rank 1 did not join at " + endpoint + " within 1 s"),
                outcomes.get(0).message());
        String late = outcomes.get(1).message();
        assertTrue(late.contains("rank 0 at " + endpoint + " turned rank 1 away: the job at " + endpoint
                + " ended: rank 1 did not join"), late);
        // at once: it came 0.5 s after the job ended and was answered, not left to its deadline of 20 s
        assertTrue(outcomes.get(1).millis() < brief.toMillis() + 500 + 2000, outcomes.get(1).millis() + " ms");
    }

    @Test
    void aMemberThatEndsTheJobFailsTheOthersAtOnceWithItsReasonWhileTheyWaitInsideAnOperation() {
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, GENEROUS).rendezvous()) {
                rendezvous.broadcast(new byte[1]);
                if (rank == 2) {
                    Thread.sleep(300);
                    rendezvous.abort("cudaMalloc failed: out of memory");
                    return rendezvous.allGather(new byte[1]);
                }
                return rendezvous.allGather(new byte[1]);
            }
        });
        assertTrue(outcomes.get(0).message().contains("rank 0: rank 2 at /127.0.0.1:")
                && outcomes.get(0).message().contains("ended the job: cudaMalloc failed: out of memory"),
                outcomes.get(0).message());
        assertTrue(outcomes.get(1).message().contains("rank 1: rank 0 ended the job: rank 2 at /127.0.0.1:")
                && outcomes.get(1).message().contains("cudaMalloc failed"), outcomes.get(1).message());
        assertTrue(outcomes.get(2).message().contains("rank 2: the rendezvous at " + endpoint + " failed earlier: "
                + "[bootstrap] rank 2: this rank ended the job: cudaMalloc failed"), outcomes.get(2).message());
        for (Outcome<Object> outcome : outcomes) {
            assertTrue(outcome.millis() < 5000, outcome.millis() + " ms, not at once");
        }
    }

    @Test
    void rankZeroThatEndsTheJobFailsTheOthersAtOnceWithItsReason() {
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, GENEROUS).rendezvous()) {
                if (rank == 0) {
                    rendezvous.abort("GetUniqueId failed: unhandled cuda error");
                    return null;
                }
                return rendezvous.broadcast(null);
            }
        });
        for (int r = 1; r < 3; r++) {
            String message = outcomes.get(r).message();
            assertTrue(message.contains("rank " + r + ": rank 0 ended the job: rank 0 failed: GetUniqueId failed: "
                    + "unhandled cuda error (reported by rank 0 at " + endpoint + " during broadcast #1)"), message);
            assertTrue(outcomes.get(r).millis() < 5000, outcomes.get(r).millis() + " ms, not at once");
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        synchronized (hostile) {
            hostile.add(s);
            hostile.notifyAll();
        }
        return s;
    }

    /** Waits until the hostile connections are open, so that the ranks meet rank 0 behind them. */
    private void awaitHostile(int count) throws InterruptedException {
        synchronized (hostile) {
            long end = System.nanoTime() + GENEROUS.toNanos();
            while (hostile.size() < count && System.nanoTime() < end) {
                hostile.wait(100);
            }
        }
    }

    /** A client that sends a plausible greeting one byte every 200 ms, never finishing within the deadline. */
    private static void trickle(Socket s) {
        Thread thread = new Thread(() -> {
            try {
                OutputStream out = s.getOutputStream();
                byte[] greeting = {0x43, 0x6f, 0x4c, 0x4c, 0, 0, 0, 1};
                for (int i = 0; ; i++) {
                    out.write(greeting[i % greeting.length]);
                    out.flush();
                    Thread.sleep(200);
                }
            } catch (IOException | InterruptedException closed) {
                // rank 0 dropped it, or the test ended
            }
        }, "trickle");
        thread.setDaemon(true);
        thread.start();
    }

    /** Rank 0 closes the connection (end of stream or reset) within {@code limit} of now. */
    private static void assertClosedByRankZeroWithin(Socket s, Duration limit) throws IOException {
        s.setSoTimeout((int) limit.toMillis());
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // the greeting, then nothing more
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("a hostile connection was still open " + limit + " later", e);
        } catch (IOException reset) {
            // closed with bytes unread: a reset
        }
    }
}
