package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static dev.collectives.runtime.bootstrap.RankThreadsForTests.connectWhenListening;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.RankThreadsForTests.Outcome;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.server.TcpAdmission;
import dev.collectives.runtime.bootstrap.wire.JobToken;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rank 0 of a TCP rendezvous under connections that are not ranks (idle, trickling one byte at a time, garbage;
 * more of them than it handshakes with at once), and ranks that fail, leave or come late: the job forms or fails
 * on every rank at once, naming the rank at fault.
 */
class HostileClientsTest {
    private static final Duration GENEROUS = RendezvousContractTest.GENEROUS;

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
    void idleTricklingAndGarbageConnectionsNeitherDelayNorBlockTheRanks() {
        int idle = TcpAdmission.MAX_HANDSHAKES + 36;
        // ranks 0..2 of the job, and (index 3) someone who opens the hostile connections before ranks 1 and 2 come;
        // rank 0 lets each connection take the whole bootstrap timeout to handshake, so that ranks kept waiting
        // behind any of them would not join before rank 0's deadline
        List<Outcome<byte[][]>> outcomes = RankThreadsForTests.run(4, index -> () -> {
            if (index == 3) {
                openHostileConnections(idle, 10, 10);
                return null;
            }
            if (index > 0) {
                awaitHostile(idle + 20);
            }
            try (Rendezvous rendezvous = index == 0
                    ? serve(3, GENEROUS)
                    : bootstrap(endpoint, index, 3, GENEROUS).rendezvous()) {
                return rendezvous.allGather(new byte[] {(byte) index});
            }
        });
        for (Outcome<byte[][]> outcome : outcomes.subList(0, 3)) {
            assertArrayEquals(new byte[][] {{0}, {1}, {2}}, outcome.get());
        }
        outcomes.get(3).get();
    }

    @Test
    void eachHostileConnectionIsDroppedAtItsHandshakeDeadlineWhileTheJobForms() {
        // fewer than rank 0 handshakes with at once, so that none is dropped to make room
        List<Outcome<byte[][]>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            if (rank == 1) {
                openHostileConnections(5, 5, 5);
                for (Socket s : hostile) {
                    assertClosedByRankZero(s);
                }
            }
            try (Rendezvous rendezvous = rank == 0
                    ? serve(2, Duration.ofMillis(300))
                    : bootstrap(endpoint, 1, 2, GENEROUS).rendezvous()) {
                return rendezvous.allGather(new byte[] {(byte) rank});
            }
        });
        outcomes.forEach(o -> assertArrayEquals(new byte[][] {{0}, {1}}, o.get()));
    }

    /** Rank 0 of a job of {@code size}, with the bootstrap timeout {@link #GENEROUS}. */
    private Rendezvous serve(int size, Duration handshakeLimit) {
        return serveOn(hostServer(size, handshakeLimit), size);
    }

    /** The server rank 0's process hosts for a job of {@code size}, with the bootstrap timeout {@link #GENEROUS}. */
    private JobServer hostServer(int size, Duration handshakeLimit) {
        return JobServer.inRankZeroProcess(
                RendezvousEndpoint.parse(endpoint),
                size,
                JobToken.of(RankThreadsForTests.TOKEN, 0),
                GENEROUS,
                JobServer.DEFAULT_HEARTBEAT_TIMEOUT,
                handshakeLimit);
    }

    /** Rank 0, which joins the server its process hosts. */
    private static Rendezvous serveOn(JobServer server, int size) {
        return TcpRendezvous.hostAndJoin(server, size, JobToken.of(RankThreadsForTests.TOKEN, 0), GENEROUS);
    }

    private void openHostileConnections(int idle, int garbled, int trickling) throws IOException {
        Random random = new Random(7);
        connectWhenListening(port).close();
        for (int i = 0; i < idle; i++) {
            connect();
        }
        for (int i = 0; i < garbled; i++) {
            byte[] garbage = new byte[1 + random.nextInt(200)];
            random.nextBytes(garbage);
            connect().getOutputStream().write(garbage);
        }
        for (int i = 0; i < trickling; i++) {
            trickle(connect());
        }
    }

    @Test
    void aMemberThatFindsNothingListeningSaysItWasRefused() {
        BootstrapException e = assertThrows(
                BootstrapException.class,
                () -> bootstrap(endpoint, 1, 2, Duration.ofMillis(800)).rendezvous());
        assertTrue(
                e.getMessage().contains("rank 1: no rank 0 at " + endpoint + " within 800 ms: refused ")
                        && e.getMessage().contains("nothing listens there"),
                e.getMessage());
    }

    @Test
    void aMemberWhoseConnectionIsAcceptedButNeverGreetedSaysRankZeroNeverAnswered() throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String there = "tcp://127.0.0.1:" + silent.getLocalPort();
            BootstrapException e = assertThrows(
                    BootstrapException.class,
                    () -> bootstrap(there, 1, 2, Duration.ofMillis(800)).rendezvous());
            assertTrue(
                    e.getMessage()
                            .contains("no rank 0 at " + there + " within 800 ms: never answered: 1 "
                                    + "connection was accepted but not greeted in time"),
                    e.getMessage());
        }
    }

    @Test
    void aRankArrivingAfterTheJobEndedIsToldSoAtOnce() {
        CountDownLatch ended = new CountDownLatch(1);
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            if (rank == 0) {
                try {
                    return bootstrap(endpoint, 0, 2, RendezvousContractTest.SHORT)
                            .rendezvous();
                } finally {
                    ended.countDown();
                }
            }
            RankThreadsForTests.await(ended);
            return bootstrap(endpoint, 1, 2, GENEROUS).rendezvous();
        });
        assertTrue(
                outcomes.get(0).message().contains("rank 1 did not join at " + endpoint + " within 1.5 s"),
                outcomes.get(0).message());
        // at once: answered with the reason, not left to its own deadline of 20 s ("no rank 0 at ...")
        String late = outcomes.get(1).message();
        assertTrue(
                late.contains("rank 0 at " + endpoint + " turned rank 1 away: the job at " + endpoint
                        + " ended: rank 1 did not join"),
                late);
    }

    @Test
    void aMemberThatEndsTheJobFailsTheOthersAtOnceWithItsReasonWhileTheyWaitInsideAnOperation() {
        CompletableFuture<JobServer> rankZerosServer = new CompletableFuture<>();
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 0) {
                rankZerosServer.complete(hostServer(3, Duration.ofSeconds(5)));
            }
            try (Rendezvous rendezvous = rank == 0
                    ? serveOn(rankZerosServer.get(), 3)
                    : bootstrap(endpoint, rank, 3, GENEROUS).rendezvous()) {
                rendezvous.broadcast(new byte[1]);
                if (rank == 2) { // once the server has the others' parts of the allgather and waits for this rank's
                    rankZerosServer.get(60, TimeUnit.SECONDS).awaitWaitingFor(2);
                    rendezvous.abort("cudaMalloc failed: out of memory");
                }
                return rendezvous.allGather(new byte[1]);
            }
        });
        assertTrue(
                outcomes.get(0).message().contains("rank 0: rank 2 at /127.0.0.1:")
                        && outcomes.get(0).message().contains("ended the job: cudaMalloc failed: out of memory"),
                outcomes.get(0).message());
        assertTrue(
                outcomes.get(1).message().contains("rank 1: rank 0 ended the job: rank 2 at /127.0.0.1:")
                        && outcomes.get(1).message().contains("cudaMalloc failed"),
                outcomes.get(1).message());
        assertTrue(
                outcomes.get(2)
                        .message()
                        .contains("rank 2: the rendezvous at " + endpoint + " failed earlier: "
                                + "[bootstrap] rank 2: this rank ended the job: cudaMalloc failed"),
                outcomes.get(2).message());
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
            assertTrue(
                    message.contains("rank " + r + ": rank 0 ended the job: rank 0 failed: GetUniqueId failed: "
                            + "unhandled cuda error (reported by rank 0 at " + endpoint + " during broadcast #1)"),
                    message);
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
            while (hostile.size() < count) {
                hostile.wait();
            }
        }
    }

    /**
     * A client that sends a plausible greeting one byte every 200 ms, never finishing within the deadline; it stops
     * once rank 0 has dropped the connection.
     */
    private static void trickle(Socket s) {
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "trickle");
            thread.setDaemon(true);
            return thread;
        });
        byte[] greeting = {0x43, 0x6f, 0x4c, 0x4c, 0, 0, 0, 1};
        AtomicInteger sent = new AtomicInteger();
        pace.scheduleAtFixedRate(
                () -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        out.write(greeting[sent.getAndIncrement() % greeting.length]);
                        out.flush();
                    } catch (IOException closed) {
                        pace.shutdown(); // rank 0 dropped it
                    }
                },
                0,
                200,
                TimeUnit.MILLISECONDS);
    }

    /** Rank 0 closes the connection (end of stream or reset); the read timeout only guards against a hang. */
    private static void assertClosedByRankZero(Socket s) throws IOException {
        s.setSoTimeout((int) GENEROUS.toMillis());
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // the greeting, then nothing more
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("rank 0 never closed a hostile connection", e);
        } catch (IOException reset) {
            // closed with bytes unread: a reset
        }
    }
}
