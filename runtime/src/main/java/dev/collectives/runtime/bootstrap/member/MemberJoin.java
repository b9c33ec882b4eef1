package dev.collectives.runtime.bootstrap.member;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.Backoff;
import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a member reaches its job's server, on its caller's thread: it connects, retrying until the deadline (the server
 * may start later), proves it holds the job token and checks that the server does too ({@link #join}); and, once its
 * connection ended, asks the server whether it was excluded ({@link #exclusion}).
 */
final class MemberJoin {
    private static final long FIRST_RETRY_MILLIS = 50;
    private static final long LAST_RETRY_MILLIS = 500;

    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private MemberJoin() {}

    /**
     * A connection to the server, past its handshake: the socket (blocking still), the bytes read past the handshake,
     * the messages' key, what the greeting said, and the rank this member is (given, for a joiner).
     */
    record Joined(SocketChannel socket, byte[] unread, JobToken sessionKey, Greeting greeting, int rank) {}

    /**
     * Joins the job as rank {@code rank}, as {@code claim} says, by {@code deadline}; a {@code standalone} server is
     * expected there (else rank 0's), for messages until its greeting says. Fails where the server turned this rank
     * away, does not hold the token, or could not be reached in time.
     */
    static Joined join(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            JobToken token,
            Deadline deadline,
            FrameRules.Claim claim,
            boolean standalone) {
        String expected = serverAt(endpoint, standalone);
        Attempts attempts = new Attempts(standalone ? "the rendezvous server" : "rank 0");
        Backoff backoff = new Backoff(deadline, FIRST_RETRY_MILLIS, LAST_RETRY_MILLIS);
        while (!deadline.expired()) {
            SocketChannel socketChannel;
            try {
                socketChannel = SocketChannel.open();
            } catch (IOException e) {
                attempts.other = e.toString();
                attempts.others++;
                backoff.pause();
                continue;
            }
            Socket socket = socketChannel.socket();
            try {
                socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), deadline.timeoutMillis());
            } catch (ConnectException e) {
                attempts.refused++;
                closeQuietly(socket);
                backoff.pause();
                continue;
            } catch (SocketTimeoutException e) {
                attempts.unanswered++;
                closeQuietly(socket);
                backoff.pauseWithoutGrowing();
                continue;
            } catch (IOException e) {
                attempts.other = e.toString();
                attempts.others++;
                closeQuietly(socket);
                backoff.pause();
                continue;
            }
            Channel channel = null;
            try {
                channel = new Channel(socket, expected);
                Channel connected = channel;
                Joined joined = channel.within(
                        deadline, () -> handshake(connected, socketChannel, endpoint, rank, size, token, claim));
                if (attempts.failed() > 0) {
                    LOG.log(
                            System.Logger.Level.DEBUG,
                            () -> "rank " + rank + " reached " + expected + " after " + attempts.failed()
                                    + " failed attempts: " + attempts);
                }
                return joined;
            } catch (EOFException | SocketException e) {
                // the server closed before greeting: it is shutting down a failed attempt, or is not up yet
                attempts.closed++;
            } catch (SocketTimeoutException e) {
                attempts.silent++;
            } catch (IOException e) {
                attempts.other = e.toString();
                attempts.others++;
            } catch (BootstrapException e) {
                closeQuietly(channel);
                throw e;
            }
            closeQuietly(channel == null ? socket : channel);
            backoff.pauseWithoutGrowing(); // the server is there, and may be ready at the next attempt
        }
        String nobody = standalone ? "no rendezvous server at " + endpoint : "no rank 0 at " + endpoint;
        throw BootstrapException.failed(rank, nobody + " " + deadline.within() + ": " + attempts, null);
    }

    /** "rank 0 at tcp://host:port", or "the rendezvous server at tcp://host:port". */
    static String serverAt(RendezvousEndpoint endpoint, boolean standalone) {
        return (standalone ? "the rendezvous server" : "rank 0") + " at " + endpoint;
    }

    /** What became of the attempts to reach the server, for the message when none succeeded. */
    private static final class Attempts {
        /** Who serves: "rank 0". */
        final String who;

        int refused;
        int unanswered;
        int closed;
        int silent;
        int others;
        String other;

        Attempts(String who) {
            this.who = who;
        }

        /** How many attempts failed. */
        int failed() {
            return refused + unanswered + closed + silent + others;
        }

        @Override
        public String toString() {
            List<String> what = new ArrayList<>();
            if (refused > 0) {
                what.add("refused " + times(refused) + " (nothing listens there: " + who + " has not started, runs on "
                        + "another host, or listens on another port)");
            }
            if (unanswered > 0) {
                what.add("never answered: " + times(unanswered, "connection attempt") + " timed out (a firewall "
                        + "drops them, or the host is down)");
            }
            if (silent > 0) {
                what.add("never answered: " + times(silent, "connection was", "connections were")
                        + " accepted but not greeted in time (another program on that port, or " + who + " is stuck)");
            }
            if (closed > 0) {
                what.add(times(closed, "connection was", "connections were") + " closed before the greeting (" + who
                        + " was starting or ending)");
            }
            if (other != null) {
                what.add("last problem: " + other);
            }
            return what.isEmpty() ? "no attempt in time" : String.join("; ", what);
        }

        private static String times(int count) {
            return count == 1 ? "once" : count + " times";
        }

        private static String times(int count, String one) {
            return times(count, one, one + "s");
        }

        private static String times(int count, String one, String many) {
            return count == 1 ? "1 " + one : count + " " + many;
        }
    }

    /** What the server's greeting says: its nonce, whether it is a standalone one, and its heartbeat timeout. */
    public record Greeting(byte[] serverNonce, boolean standalone, Duration heartbeatTimeout) {}

    /** What the handshake came to: the server's greeting, the rank this member is (given, for a joiner), the key. */
    public record Admitted(Greeting greeting, int rank, JobToken sessionKey) {}

    /** Proves the token both ways on {@code channel} (over {@code socket}); returns what came of it. */
    private static Joined handshake(
            Channel channel,
            SocketChannel socket,
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            JobToken token,
            FrameRules.Claim kind)
            throws IOException {
        Admitted admitted = admit(channel, endpoint, rank, size, token, kind);
        return new Joined(socket, channel.takeUnread(), admitted.sessionKey(), admitted.greeting(), admitted.rank());
    }

    /**
     * Proves the token both ways on {@code channel} with a {@code kind} claim (a rank's, or a client's that asks for
     * the ranks' records); returns the greeting, the rank and the messages' key. Fails where the server turned the
     * claim away or does not hold the token.
     */
    public static Admitted admit(
            Channel channel, RendezvousEndpoint endpoint, int rank, int size, JobToken token, FrameRules.Claim kind)
            throws IOException {
        DataInputStream in = channel.in();
        Greeting greeting = greeting(in, endpoint, rank);
        String server = serverAt(endpoint, greeting.standalone());
        byte[] clientNonce = JobToken.nonce();
        byte[] claim = claim(channel.out(), greeting, clientNonce, rank, size, token, kind);
        byte answer = in.readByte();
        if (answer == Channel.REJECTED) {
            String turned = switch (kind) {
                case GROW -> " turned away a process that joins the job: ";
                case DUMP -> " turned a request for the ranks' records away: ";
                default -> " turned rank " + rank + " away: ";
            };
            throw BootstrapException.remote(rank, server + turned + Channel.readText(in));
        }
        int number = answer == Channel.ACCEPTED && kind == FrameRules.Claim.GROW ? in.readInt() : rank;
        byte[] mac = Channel.readBytes(in, JobToken.MAC_BYTES);
        byte[][] covered = kind == FrameRules.Claim.GROW
                ? new byte[][] {greeting.serverNonce(), clientNonce, claim, JobToken.ints(number)}
                : new byte[][] {greeting.serverNonce(), clientNonce, claim};
        if (answer != Channel.ACCEPTED || !token.verify(mac, "accept", covered)) {
            throw BootstrapException.failed(
                    rank,
                    "the server at " + endpoint + " does not hold this job's token"
                            + " (another job's rendezvous on the same port, or a wrong " + Settings.JOB_TOKEN
                            + " here)",
                    null);
        }
        return new Admitted(greeting, number, Channel.sessionKey(token, greeting.serverNonce(), clientNonce, number));
    }

    private static Greeting greeting(DataInputStream in, RendezvousEndpoint endpoint, int rank) throws IOException {
        int magic = in.readInt();
        int version = in.readInt();
        if (magic != Channel.MAGIC || version != Channel.VERSION) {
            throw BootstrapException.failed(
                    rank,
                    magic == Channel.MAGIC
                            ? endpoint + " speaks version " + version + " of the collectives rendezvous protocol, this"
                                    + " rank version " + Channel.VERSION + " (every rank and the server need the same"
                                    + " release of the library)"
                            : endpoint + " is not a collectives rendezvous of version " + Channel.VERSION
                                    + " (it greeted with magic " + Integer.toHexString(magic) + ", version " + version
                                    + ")",
                    null);
        }
        byte[] serverNonce = Channel.readBytes(in, JobToken.NONCE_BYTES);
        boolean standalone = in.readByte() == Channel.STANDALONE;
        int heartbeatMillis = in.readInt();
        if (heartbeatMillis <= 0) {
            throw new ProtocolException("a greeting with the heartbeat timeout " + heartbeatMillis + " ms");
        }
        return new Greeting(serverNonce, standalone, Duration.ofMillis(heartbeatMillis));
    }

    /** Claims rank {@code rank} as {@code kind}; returns what the MACs cover. */
    private static byte[] claim(
            DataOutputStream out,
            Greeting greeting,
            byte[] clientNonce,
            int rank,
            int size,
            JobToken token,
            FrameRules.Claim kind)
            throws IOException {
        byte[] claim = JobToken.ints(rank, size);
        out.writeInt(Channel.MAGIC);
        out.writeInt(Channel.VERSION);
        out.writeByte(kind.wire());
        out.writeInt(rank);
        out.writeInt(size);
        out.write(clientNonce);
        out.write(token.mac(kind.word, greeting.serverNonce(), clientNonce, claim));
        out.flush();
        return claim;
    }

    /**
     * Why the server excluded rank {@code rank} from the job, asked once its connection ended or the server fell
     * silent (the server closes an excluded rank's connection, and the message that said why may never have come):
     * for as long as {@code patience}, so that a network that comes back in that time still tells it, each attempt
     * within {@code attempt}; null if the server did not exclude it, or cannot be reached to say.
     */
    static String exclusion(
            RendezvousEndpoint endpoint,
            String server,
            int rank,
            int size,
            JobToken token,
            Duration patienceTime,
            Duration attemptTime) {
        Deadline patience = Deadline.after(patienceTime);
        Backoff backoff = new Backoff(patience, FIRST_RETRY_MILLIS, LAST_RETRY_MILLIS);
        while (!patience.expired()) {
            Deadline attempt =
                    Deadline.after(Duration.ofMillis(Math.min(attemptTime.toMillis(), patience.remainingMillis())));
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), attempt.timeoutMillis());
                Channel channel = new Channel(socket, server);
                return channel.within(attempt, () -> {
                    Greeting greeting = greeting(channel.in(), endpoint, rank);
                    claim(channel.out(), greeting, JobToken.nonce(), rank, size, token, FrameRules.Claim.FATE);
                    byte answer = FrameRules.checkAnswer(
                            FrameRules.Claim.FATE, channel.in().readByte());
                    String text = Channel.readText(channel.in());
                    return answer == Channel.EXCLUDED ? text : null;
                });
            } catch (ConnectException | ProtocolException | BootstrapException e) {
                return null; // nothing, or nothing that can say, serves there: the failure says what this rank saw
            } catch (IOException e) {
                backoff.pause(); // the network may come back
            }
        }
        return null;
    }

    private static void closeQuietly(AutoCloseable resource) {
        if (resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
