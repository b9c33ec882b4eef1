package dev.collectives.runtime.bootstrap;

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
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * A member of a TCP rendezvous: any rank, rank 0 too, of the job a {@link RendezvousServer} serves (hosted by rank 0's
 * process, or by a process of its own). It connects to the server, retrying until the deadline (the server may start
 * later), proves it holds the job token and checks that the server does too, then takes part in each operation
 * through {@link ServedOperations}. Inside an operation it waits a little past the deadline, so that the server,
 * which watches every rank, can say which rank is at fault before this one would have to guess. Where this rank's
 * process hosts the server, closing the member closes the server too.
 */
final class TcpMember extends Exchange {
    private static final long FIRST_RETRY_MILLIS = 50;
    private static final long LAST_RETRY_MILLIS = 500;
    /** How long past an operation's deadline a member waits for the server's verdict. */
    private static final Duration VERDICT_GRACE = Duration.ofSeconds(2);

    private final Channel root;
    /** Who serves the rendezvous, for messages: "rank 0 at tcp://host:port" or "the rendezvous server at …". */
    private final String server;
    /** The server this rank's process hosts (rank 0's, by default), closed after this member; else null. */
    private final RendezvousServer hosted;
    /** Whether this process joined in the place of a rank that died. */
    private final boolean replacement;
    /** Whether the server took this replacement in ({@link Channel#REJOIN}); always for the others. */
    private boolean rejoined;
    /** Set once this rank aborts or closes: its connection ending then is no news for a watcher. */
    private volatile boolean ending;

    private TcpMember(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            Duration timeout,
            Channel root,
            String server,
            boolean replacement,
            RendezvousServer hosted) {
        super(rank, size, endpoint.toString(), timeout);
        this.root = root;
        this.server = server;
        this.hosted = hosted;
        this.replacement = replacement;
        this.rejoined = !replacement;
    }

    /**
     * Joins the job as rank {@code rank}, or as a {@code replacement} of that rank, which died; a {@code standalone}
     * server is expected there (else rank 0's), for messages until its greeting says. Where this process hosts the
     * server ({@code hosted}, or null), it is closed with the member, or at once if the member cannot join.
     */
    static TcpMember join(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            JobToken token,
            Duration timeout,
            boolean replacement,
            boolean standalone,
            RendezvousServer hosted) {
        String expected = serverAt(endpoint, standalone);
        Deadline deadline = Deadline.after(timeout);
        Attempts attempts = new Attempts(standalone ? "the rendezvous server" : "rank 0");
        Backoff backoff = new Backoff(deadline, FIRST_RETRY_MILLIS, LAST_RETRY_MILLIS);
        while (!deadline.expired()) {
            Socket socket = new Socket();
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
                closeQuietly(socket);
                backoff.pause();
                continue;
            }
            Channel channel = null;
            try {
                channel = new Channel(socket, expected);
                Channel connected = channel;
                String server =
                        channel.within(deadline, () -> handshake(connected, endpoint, rank, size, token, replacement));
                return new TcpMember(endpoint, rank, size, timeout, channel, server, replacement, hosted);
            } catch (EOFException | SocketException e) {
                // the server closed before greeting: it is shutting down a failed attempt, or is not up yet
                attempts.closed++;
            } catch (SocketTimeoutException e) {
                attempts.silent++;
            } catch (IOException e) {
                attempts.other = e.toString();
            } catch (BootstrapException e) {
                closeQuietly(channel);
                closeQuietly(hosted);
                throw e;
            }
            closeQuietly(channel == null ? socket : channel);
            backoff.pauseWithoutGrowing(); // the server is there, and may be ready at the next attempt
        }
        closeQuietly(hosted);
        String nobody = standalone ? "no rendezvous server at " + endpoint : "no rank 0 at " + endpoint;
        throw BootstrapException.failed(rank, nobody + " " + deadline.within() + ": " + attempts, null);
    }

    /** "rank 0 at tcp://host:port", or "the rendezvous server at tcp://host:port". */
    private static String serverAt(RendezvousEndpoint endpoint, boolean standalone) {
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
        String other;

        Attempts(String who) {
            this.who = who;
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

    /** Proves the token both ways; returns who serves, for messages (the greeting says). */
    private static String handshake(
            Channel channel, RendezvousEndpoint endpoint, int rank, int size, JobToken token, boolean replacement)
            throws IOException {
        DataInputStream in = channel.in();
        DataOutputStream out = channel.out();
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
        String server = serverAt(endpoint, in.readByte() == Channel.STANDALONE);
        byte[] clientNonce = JobToken.nonce();
        byte[] claim = JobToken.ints(rank, size);
        out.writeInt(Channel.MAGIC);
        out.writeInt(Channel.VERSION);
        out.writeInt(rank);
        out.writeInt(size);
        out.write(clientNonce);
        out.write(token.mac(replacement ? "replace" : "join", serverNonce, clientNonce, claim));
        out.flush();
        byte answer = in.readByte();
        if (answer == Channel.REJECTED) {
            throw BootstrapException.remote(rank, server + " turned rank " + rank + " away: " + Channel.readText(in));
        }
        byte[] mac = Channel.readBytes(in, JobToken.MAC_BYTES);
        if (answer != Channel.ACCEPTED || !token.verify(mac, "accept", serverNonce, clientNonce, claim)) {
            throw BootstrapException.failed(
                    rank,
                    "the server at " + endpoint + " does not hold this job's token"
                            + " (another job's rendezvous on the same port, or a wrong " + Settings.JOB_TOKEN
                            + " here)",
                    null);
        }
        channel.authenticated(Channel.sessionKey(token, serverNonce, clientNonce, rank), false, server);
        return server;
    }

    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        return served(Channel.BROADCAST, value == null ? new byte[0] : value, deadline)
                .values()[0];
    }

    /** Every rank's value for this operation, or why it is gone, as the server answers. */
    private Survivors served(byte type, byte[] value, Deadline deadline) {
        tellServer(type, value, deadline);
        try {
            return Channel.readGathered(receive(Channel.gatheredBytes(size()), deadline), size());
        } catch (IOException e) {
            throw fail(failure(e, deadline));
        }
    }

    @Override
    protected boolean watches() {
        return true;
    }

    /**
     * Reads what the server sends on a thread of its own from now on: the job's end (an ABORT, with why), a rank's
     * death (GONE), or that rank 0 closed the job (LEAVE). A connection that ends otherwise, while this rank neither
     * aborted nor closed, means the server is gone (with rank 0's process, where that hosts it).
     */
    @Override
    protected void doWatch(Consumer<String> onFailure) {
        tellServer(Channel.WATCH, new byte[0], Deadline.after(timeout()));
        Thread watcher = new Thread(() -> watchRoot(onFailure), "collectives-job-watch-rank-" + rank());
        watcher.setDaemon(true);
        watcher.start();
    }

    private void watchRoot(Consumer<String> onFailure) {
        String failure;
        try {
            Channel.Frame frame = FrameRules.check(FrameRules.Phase.WATCHING, root.receiveAny());
            if (frame.type() == Channel.LEAVE) {
                return;
            }
            if (frame.type() == Channel.GONE) {
                state().on(JobState.Event.DEATH, frame.text()); // before the watcher hears it: it may resume at once
                onFailure.accept(frame.text());
                return;
            }
            failure = frame.text(); // an ABORT
        } catch (ProtocolException e) {
            failure = server + " sent " + e.getMessage();
        } catch (IOException e) {
            if (ending) {
                return;
            }
            failure = server + " is gone: the connection ended while the job ran (" + e + ")";
        }
        state().on(JobState.Event.END, failure);
        onFailure.accept(failure);
    }

    /** The survivors of a death that the server told of meet again; any other news of the job is why they cannot. */
    @Override
    protected String doResume() {
        return switch (state().phase()) {
            case RANK_DIED -> null;
            case ENDED -> "the job ended: " + state().news();
            default -> server + " reported no rank's death";
        };
    }

    /** Tells the server where this rank waits (briefly: it may be gone, and then the watcher hears of it). */
    @Override
    protected void doStalled(String where) {
        try {
            root.send(Channel.STALL, sequence(), Channel.truncate(where), Deadline.after(Duration.ofSeconds(1)));
        } catch (IOException ignored) {
            // the server is gone or stuck: its connection ending tells the watcher
        }
    }

    /**
     * Asks the server to end the job with this rank's reason (briefly: it may be gone); where this process hosts it,
     * ends the job there at once, since closing this rank closes the server right after.
     */
    @Override
    protected void doAbort(String reason) {
        ending = true;
        if (hosted != null) {
            hosted.endJob("rank 0 failed: " + reason);
            return;
        }
        try {
            root.send(Channel.ABORT, sequence(), Channel.truncate(reason), Deadline.after(Duration.ofSeconds(1)));
        } catch (IOException ignored) {
            // the server is gone or stuck: the others learn of it from the server's end or their deadline
        }
    }

    @Override
    public boolean replacement() {
        return replacement;
    }

    /** A replacement first waits until the server takes it in, at the survivors' operation, which it numbers on from. */
    @Override
    protected int[] doReunite(Deadline deadline) {
        if (!rejoined) {
            awaitRejoin(deadline);
        }
        tellServer(
                Channel.REUNION,
                ByteBuffer.allocate(Long.BYTES)
                        .putLong(deadline.total().toMillis())
                        .array(),
                deadline);
        return BitSet.valueOf(receive((size() + 7) / 8, deadline)).stream().toArray();
    }

    private void awaitRejoin(Deadline deadline) {
        Channel.Frame frame;
        try {
            frame = FrameRules.check(
                    FrameRules.Phase.AWAITING_REJOIN, root.receive(sequence(), 0, deadline.extendedBy(VERDICT_GRACE)));
        } catch (IOException e) {
            throw fail(failure(e, deadline));
        }
        if (frame.type() == Channel.ABORT) {
            throw fail(BootstrapException.remote(
                    rank(),
                    frame.text() + " (reported by " + server + " while the replacement of rank " + rank()
                            + " waited for the survivors)"));
        }
        if (frame.type() == Channel.LEAVE) {
            throw fail(BootstrapException.failed(
                    rank(),
                    server + " closed the rendezvous before it took the replacement of rank " + rank() + " in",
                    null));
        }
        rejoined = true;
        continueAt(frame.operation());
    }

    @Override
    protected Survivors doAllGatherOfSurvivors(byte[] value, Deadline deadline) {
        return ServedOperations.survivors(served(Channel.SURVIVORS, value, deadline), rank(), operation());
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        return ServedOperations.allGather(served(Channel.DATA, value, deadline), rank(), operation());
    }

    private void tellServer(byte type, byte[] value, Deadline deadline) {
        try {
            root.send(type, sequence(), value, deadline);
        } catch (IOException e) {
            throw fail(failure(e, deadline));
        }
    }

    private byte[] receive(int maxBytes, Deadline deadline) {
        Channel.Frame frame;
        try {
            frame = FrameRules.check(
                    FrameRules.Phase.OPERATION, root.receive(sequence(), maxBytes, deadline.extendedBy(VERDICT_GRACE)));
        } catch (IOException e) {
            throw fail(failure(e, deadline));
        }
        if (frame.type() == Channel.ABORT) {
            throw fail(BootstrapException.remote(
                    rank(), frame.text() + " (reported by " + server + " during " + operation() + ")"));
        }
        if (frame.type() != Channel.DATA) {
            throw fail(
                    BootstrapException.failed(rank(), server + " closed the rendezvous during " + operation(), null));
        }
        return frame.bytes();
    }

    private BootstrapException failure(IOException e, Deadline deadline) {
        String what;
        if (e instanceof SocketTimeoutException) {
            what = server + " did not complete " + operation() + " " + deadline.within()
                    + " and did not say why: it is late or stuck itself (it names any other rank that is)";
        } else if (e instanceof ProtocolException) {
            what = server + " sent " + e.getMessage() + " in " + operation();
        } else if (e instanceof EOFException || e instanceof SocketException) {
            what = server + " is gone: the connection ended during " + operation() + " (" + e + ")";
        } else {
            what = "the connection to " + server + " failed during " + operation() + ": " + e;
        }
        return BootstrapException.failed(rank(), what, e);
    }

    @Override
    protected void doClose() {
        ending = true;
        if (!failed()) {
            try {
                root.send(Channel.LEAVE, sequence(), new byte[0], Deadline.after(Duration.ofSeconds(1)));
            } catch (IOException ignored) {
                // the server is gone already; nothing is left to tell it
            }
        }
        root.close();
        if (hosted != null) {
            hosted.close();
        }
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
