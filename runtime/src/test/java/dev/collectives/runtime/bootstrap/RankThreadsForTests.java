package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Runs one body per rank in threads of this JVM and gives back each rank's result or failure. Public for the
 * backends' tests, which join real rendezvous.
 */
public final class RankThreadsForTests {
    public static final String TOKEN = "job-token-for-tests-0123456789abcdef";

    private RankThreadsForTests() {}

    /** What one rank's body returned or threw. */
    record Outcome<T>(T value, Throwable failure) {
        String message() {
            assertTrue(failure != null, "expected a failure, got " + value);
            return failure.getMessage();
        }

        T get() {
            if (failure != null) {
                throw new AssertionError("the rank failed: " + failure, failure);
            }
            return value;
        }
    }

    static <T> List<Outcome<T>> run(int ranks, IntFunction<Callable<T>> bodies) {
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<Outcome<T>>> futures = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                Callable<T> body = bodies.apply(r);
                futures.add(pool.submit(() -> {
                    try {
                        return new Outcome<>(body.call(), null);
                    } catch (Throwable t) {
                        return new Outcome<T>(null, t);
                    }
                }));
            }
            List<Outcome<T>> outcomes = new ArrayList<>();
            for (Future<Outcome<T>> future : futures) {
                outcomes.add(future.get(60, TimeUnit.SECONDS));
            }
            return outcomes;
        } catch (Exception e) {
            throw new AssertionError("a rank did not finish: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    static Bootstrap bootstrap(String endpoint, int rank, int size, Duration timeout) {
        return bootstrap(endpoint, rank, size, timeout, TOKEN);
    }

    static Bootstrap bootstrap(String endpoint, int rank, int size, Duration timeout, String token) {
        return Bootstrap.builder()
                .rank(rank)
                .size(size)
                .rendezvous(endpoint)
                .timeout(timeout)
                .jobToken(token)
                .build();
    }

    /** A loopback port nothing listens on right now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Waits for {@code latch}, which another rank's thread counts down; the limit only guards against a hang. */
    static void await(CountDownLatch latch) throws InterruptedException {
        if (!latch.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("the other ranks never got there");
        }
    }

    /**
     * The settings of rank {@code rank} of {@code size} joining the {@link JobServer} at {@code endpoint}
     * (every rank a member), each step within {@code timeout}.
     */
    static Bootstrap.Builder memberOfServer(String endpoint, int rank, int size, Duration timeout) {
        return Bootstrap.builder()
                .rank(rank)
                .size(size)
                .rendezvous(endpoint)
                .timeout(timeout)
                .jobToken(TOKEN)
                .option("rendezvousServer", "standalone");
    }

    /**
     * A raw connection admitted by the server at {@code port} as {@code rank} of {@code size}: it proves the job token
     * and reads the server's answer, and then behaves as the test makes it.
     */
    public static Socket admittedAs(int port, int rank, int size) throws IOException {
        Socket s = connectWhenListening(port);
        Claim claim = claim(s, rank, size, FrameRules.Claim.JOIN);
        assertTrue(claim.answer() == Channel.ACCEPTED, "the server turned rank " + rank + " away");
        new DataInputStream(s.getInputStream()).readNBytes(JobToken.MAC_BYTES);
        return s;
    }

    /**
     * A connection admitted by the server at {@code port} as {@code rank} of {@code size}, whose messages are
     * authenticated as a member's: it sends and reads what the test makes it, and never beats.
     */
    static Channel authenticatedAs(int port, int rank, int size) throws IOException {
        return authenticatedAs(port, rank, size, FrameRules.Claim.JOIN);
    }

    /** As {@link #authenticatedAs(int, int, int)}, claiming its rank as {@code kind} (a replacement, say). */
    static Channel authenticatedAs(int port, int rank, int size, FrameRules.Claim kind) throws IOException {
        Socket s = connectWhenListening(port);
        Claim claim = claim(s, rank, size, kind);
        assertTrue(claim.answer() == Channel.ACCEPTED, "the server turned rank " + rank + " away");
        Channel channel = new Channel(s, "the server");
        channel.in().readNBytes(JobToken.MAC_BYTES);
        channel.authenticated(
                Channel.sessionKey(JobToken.of(TOKEN, rank), claim.serverNonce(), claim.clientNonce(), rank),
                false,
                "the server");
        return channel;
    }

    /** A process admitted to join at the next growth: its connection, authenticated, and the number it holds. */
    record Joiner(Channel channel, int number) {}

    /**
     * A connection admitted by the server at {@code port} as a process that joins the job at its next growth, whose
     * messages are authenticated as a member's: it sends and reads what the test makes it, and never beats.
     */
    static Joiner authenticatedAsJoiner(int port) throws IOException {
        Socket s = connectWhenListening(port);
        Claim claim = claim(s, -1, -1, FrameRules.Claim.GROW);
        assertTrue(claim.answer() == Channel.ACCEPTED, "the server turned a joiner away");
        Channel channel = new Channel(s, "the server");
        int number = channel.in().readInt();
        channel.in().readNBytes(JobToken.MAC_BYTES);
        channel.authenticated(
                Channel.sessionKey(JobToken.of(TOKEN, -1), claim.serverNonce(), claim.clientNonce(), number),
                false,
                "the server");
        return new Joiner(channel, number);
    }

    /** What the server at {@code port} answers rank {@code rank} of {@code size} asking whether it was excluded. */
    static String fate(int port, int rank, int size) throws IOException {
        try (Socket s = connectWhenListening(port)) {
            Claim claim = claim(s, rank, size, FrameRules.Claim.FATE);
            String text = Channel.readText(new DataInputStream(s.getInputStream()));
            return (claim.answer() == Channel.EXCLUDED ? "excluded: " : "not excluded: ") + text;
        }
    }

    /** A claim's nonces and the server's answer to it (the byte that says whether it was admitted). */
    private record Claim(byte[] serverNonce, byte[] clientNonce, byte answer) {}

    /** What the server at {@code port} answers a claim for rank {@code rank} of {@code size} made with {@code token}. */
    static String claimWith(String token, int port, int rank, int size) throws IOException {
        try (Socket s = connectWhenListening(port)) {
            Claim claim = claim(s, JobToken.of(token, rank), rank, size, FrameRules.Claim.JOIN);
            assertTrue(claim.answer() == Channel.REJECTED, "a claim with token " + token + " was admitted");
            return Channel.readText(new DataInputStream(s.getInputStream()));
        }
    }

    /** Reads the greeting on {@code s} and claims {@code rank} of {@code size} as {@code kind}. */
    private static Claim claim(Socket s, int rank, int size, FrameRules.Claim kind) throws IOException {
        return claim(s, JobToken.of(TOKEN, rank), rank, size, kind);
    }

    private static Claim claim(Socket s, JobToken token, int rank, int size, FrameRules.Claim kind) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        in.readInt();
        in.readInt();
        byte[] serverNonce = in.readNBytes(JobToken.NONCE_BYTES);
        in.readByte(); // who hosts the server: rank 0's process, or one of its own
        in.readInt(); // its heartbeat timeout: this connection never beats
        byte[] clientNonce = JobToken.nonce();
        out.writeInt(Channel.MAGIC);
        out.writeInt(Channel.VERSION);
        out.writeByte(kind.wire());
        out.writeInt(rank);
        out.writeInt(size);
        out.write(clientNonce);
        out.write(token.mac(kind.word, serverNonce, clientNonce, JobToken.ints(rank, size)));
        out.flush();
        return new Claim(serverNonce, clientNonce, in.readByte());
    }

    /** Sends the header of a message that announces {@code length} bytes on the admitted {@code member}. */
    static void announce(Socket member, int length) throws IOException {
        DataOutputStream out = new DataOutputStream(member.getOutputStream());
        out.writeByte(FrameType.DATA.wire);
        out.writeInt(1);
        out.writeInt(length);
        out.flush();
    }

    /** A raw connection to the port of rank 0 (a thread started alongside), once it listens. */
    static Socket connectWhenListening(int port) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(20));
        Backoff backoff = new Backoff(deadline, 5, 100);
        while (true) {
            try {
                return new Socket(InetAddress.getLoopbackAddress(), port);
            } catch (IOException e) {
                if (deadline.expired()) {
                    throw new AssertionError("rank 0 never listened at port " + port, e);
                }
                backoff.pause();
            }
        }
    }
}
