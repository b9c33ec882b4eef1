package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A member of a TCP rendezvous: any rank, rank 0 too, of the job a {@link JobServer} serves (hosted by rank 0's
 * process, or by a process of its own). It connects to the server, retrying until the deadline (the server may start
 * later), proves it holds the job token and checks that the server does too, then takes part in each operation
 * through {@link ServedOperations}. Inside an operation it waits a little past the deadline, so that the server,
 * which watches every rank, can say which rank is at fault before this one would have to guess. Where this rank's
 * process hosts the server, closing the member closes the server too.
 */
final class TcpMember extends Exchange {
    private static final long FIRST_RETRY_MILLIS = 50;
    private static final long LAST_RETRY_MILLIS = 500;

    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private final Channel root;
    /** Where the server is and the job's token: a rank whose connection ended asks it whether it was excluded. */
    private final RendezvousEndpoint endpoint;

    private final JobToken token;
    /** Where this rank's communicators stand, which its heartbeats carry. */
    private final Set<Supplier<Progress.Place>> reported = new CopyOnWriteArraySet<>();
    /** This rank's heartbeats to the server, at the interval its heartbeat timeout asks for. */
    private final Heartbeats.Beat beat;
    /** How long this rank waits for a sign of life from the server: its own heartbeat timeout, or the server's if longer. */
    private final Duration heartbeatTimeout;
    /** This rank's waits, derived from its operation timeout and {@link #heartbeatTimeout}. */
    private final Timeouts timeouts;
    /** Who serves the rendezvous, for messages: "rank 0 at tcp://host:port" or "the rendezvous server at …". */
    private final String server;
    /** Whether a process of its own serves the rendezvous (else rank 0's, which dies with rank 0). */
    private final boolean standalone;
    /** The server this rank's process hosts (rank 0's, by default), closed after this member; else null. */
    private final JobServer hosted;
    /** How this process joined: as a rank of the job, in the place of one that died, or at the job's next growth. */
    private final FrameRules.Claim claim;
    /** The thread that watches the job ({@link #doWatch}), or null. */
    private Thread watcher;
    /** Set once this rank aborts or closes: its connection ending then is no news for a watcher. */
    private volatile boolean ending;

    private TcpMember(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            Duration timeout,
            Duration heartbeatTimeout,
            Channel root,
            JobToken token,
            Greeting greeting,
            FrameRules.Claim claim,
            JobServer hosted) {
        super(rank, size, endpoint.toString(), timeout);
        this.root = root;
        this.endpoint = endpoint;
        this.token = token;
        this.server = serverAt(endpoint, greeting.standalone());
        this.standalone = greeting.standalone();
        this.hosted = hosted;
        this.beat = Heartbeats.start(
                root, rank, () -> Progress.of(reported), new Timeouts(timeout, greeting.heartbeatTimeout()));
        this.heartbeatTimeout = heartbeatTimeout;
        this.timeouts = new Timeouts(timeout, heartbeatTimeout);
        this.claim = claim;
    }

    @Override
    public Progress.Report reportProgress(Supplier<Progress.Place> place) {
        reported.add(place);
        return () -> reported.remove(place);
    }

    /**
     * Joins the job as rank {@code rank}, as the {@code claim} says: a rank of the job, the replacement of that rank,
     * which died, or a process that joins the running job at its next growth (its rank and size are -1 here: the server
     * gives it its number); a {@code standalone} server is expected there (else rank 0's), for messages until its
     * greeting says. Where this process hosts the
     * server ({@code hosted}, or null), it is closed with the member, or at once if the member cannot join. This rank
     * beats as often as the server's heartbeat timeout asks, and fails when it hears nothing from the server for
     * {@code heartbeatTimeout} (or the server's, if longer).
     */
    static TcpMember join(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            JobToken token,
            Duration timeout,
            Duration heartbeatTimeout,
            FrameRules.Claim claim,
            boolean standalone,
            JobServer hosted) {
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
                attempts.others++;
                closeQuietly(socket);
                backoff.pause();
                continue;
            }
            Channel channel = null;
            try {
                channel = new Channel(socket, expected);
                Channel connected = channel;
                Admitted admitted =
                        channel.within(deadline, () -> handshake(connected, endpoint, rank, size, token, claim));
                Greeting greeting = admitted.greeting();
                Duration silence = max(heartbeatTimeout, greeting.heartbeatTimeout());
                channel.expectBeats(silence);
                if (attempts.failed() > 0) {
                    LOG.log(
                            System.Logger.Level.DEBUG,
                            () -> "rank " + rank + " reached " + expected + " after " + attempts.failed()
                                    + " failed attempts: " + attempts);
                }
                // a process that joins knows the job's size once it grew: until then, only its own number
                int number = admitted.rank();
                int known = claim == FrameRules.Claim.GROW ? number + 1 : size;
                TcpMember member = new TcpMember(
                        endpoint, number, known, timeout, silence, channel, token, greeting, claim, hosted);
                member.joined();
                return member;
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

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** What the server's greeting says: its nonce, whether it is a standalone one, and its heartbeat timeout. */
    private record Greeting(byte[] serverNonce, boolean standalone, Duration heartbeatTimeout) {}

    /** What the handshake came to: the server's greeting, and the rank this member is (given, for a joiner). */
    private record Admitted(Greeting greeting, int rank) {}

    /** Proves the token both ways; returns what the server's greeting said, and the rank this member is. */
    private static Admitted handshake(
            Channel channel, RendezvousEndpoint endpoint, int rank, int size, JobToken token, FrameRules.Claim kind)
            throws IOException {
        DataInputStream in = channel.in();
        Greeting greeting = greeting(in, endpoint, rank);
        String server = serverAt(endpoint, greeting.standalone());
        byte[] clientNonce = JobToken.nonce();
        byte[] claim = claim(channel.out(), greeting, clientNonce, rank, size, token, kind);
        byte answer = in.readByte();
        if (answer == Channel.REJECTED) {
            String turned = kind == FrameRules.Claim.GROW
                    ? " turned away a process that joins the job: "
                    : " turned rank " + rank + " away: ";
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
        channel.authenticated(Channel.sessionKey(token, greeting.serverNonce(), clientNonce, number), false, server);
        return new Admitted(greeting, number);
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
     * Why the server excluded this rank from the job, asked once its connection ended or the server fell silent (the
     * server closes an excluded rank's connection, and the message that said why may never have come): for
     * {@link Timeouts#fateWait()}, so that a network that comes back in that time still tells it; null if the server
     * did not exclude it, or cannot be reached to say.
     */
    private String exclusion() {
        Deadline patience = Deadline.after(timeouts.fateWait());
        Backoff backoff = new Backoff(patience, FIRST_RETRY_MILLIS, LAST_RETRY_MILLIS);
        while (!patience.expired()) {
            Deadline attempt = Deadline.after(
                    Duration.ofMillis(Math.min(timeouts.notice().toMillis(), patience.remainingMillis())));
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), attempt.timeoutMillis());
                Channel channel = new Channel(socket, server);
                return channel.within(attempt, () -> {
                    Greeting greeting = greeting(channel.in(), endpoint, rank());
                    claim(channel.out(), greeting, JobToken.nonce(), rank(), size(), token, FrameRules.Claim.FATE);
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

    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        return served(FrameType.BROADCAST, value == null ? new byte[0] : value, deadline)
                .values()[0];
    }

    /** Every rank's value for this operation, or why it is gone, as the server answers. */
    private Survivors served(FrameType type, byte[] value, Deadline deadline) {
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
    protected void doWatch(Consumer<Cause> onFailure) {
        try {
            root.send(FrameType.WATCH, sequence(), new byte[0], Deadline.after(timeout()));
        } catch (IOException e) {
            // the server is gone or stuck: what it told before (a death, the job's end) or the silence after reaches
            // the watcher, which reads the news a failed send would hide
        }
        watcher = new Thread(() -> watchRoot(onFailure), "collectives-job-watch-rank-" + rank());
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * Asks the server to end the watch, and waits for the watcher to hear it end; where it heard of a death or the
     * job's end first, that is why the watch cannot end here.
     */
    @Override
    protected String doUnwatch() {
        tellServer(FrameType.UNWATCH, new byte[0], Deadline.after(timeout()));
        try {
            watcher.join(timeout().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watcher.isAlive()) {
            return server + " did not end the watch of rank " + rank() + " within "
                    + Settings.formatDuration(timeout());
        }
        return state().phase() == JobState.Phase.WATCHED
                ? null
                : "the job is " + state().phase().words + ": " + state().news();
    }

    private void watchRoot(Consumer<Cause> onFailure) {
        Cause failure;
        try {
            Channel.Frame frame = news(FrameRules.Phase.WATCHING, root::receiveNews);
            if (frame.type() == FrameType.LEAVE || frame.type() == FrameType.UNWATCH) {
                return;
            }
            if (frame.type() == FrameType.GONE) {
                // before the watcher hears it: it may resume at once
                state().on(JobState.Event.DEATH, frame.cause().text());
                onFailure.accept(frame.cause());
                return;
            }
            endOf(frame);
            failure = frame.cause();
        } catch (ProtocolException e) {
            failure = serverLost(server + " sent " + e.getMessage());
        } catch (IOException e) {
            if (ending) {
                return;
            }
            String exclusion = excludedAfter(e, "while the job ran");
            failure = exclusion != null
                    ? Cause.of(Cause.Kind.EXCLUDED, exclusion, rank())
                    : serverLost(
                            e instanceof Channel.Silence
                                    ? server + " sent nothing, not even a heartbeat, while the job ran: "
                                            + e.getMessage() + " (it is stopped, cut off from this host, or gone)"
                                    : server + " is gone: the connection ended while the job ran (" + e + ")");
        }
        state().on(JobState.Event.END, failure.text());
        onFailure.accept(failure);
    }

    /** The server is lost, as {@code why} says: where rank 0's process hosts it, that blames rank 0. */
    private Cause serverLost(String why) {
        return standalone ? Cause.of(Cause.Kind.SERVER_LOST, why) : Cause.of(Cause.Kind.SERVER_LOST, why, 0);
    }

    /** The survivors of a death that the server told of meet again; any other news of the job is why they cannot. */
    @Override
    protected String doResume() {
        return switch (state().phase()) {
            case RANK_DIED -> null;
            case ENDED -> "the job ended: " + state().news();
            case EXCLUDED -> state().news();
            default -> server + " reported no rank's death";
        };
    }

    /** Tells the server where this rank waits (briefly: it may be gone, and then the watcher hears of it). */
    @Override
    protected void doStalled(String where) {
        try {
            root.send(
                    FrameType.STALL,
                    sequence(),
                    Cause.of(Cause.Kind.STALLED, where, rank()).bytes(),
                    Deadline.after(timeouts.notice()));
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
            hosted.endJob(Cause.of(Cause.Kind.ABORTED, "rank 0 failed: " + reason, 0));
            return;
        }
        try {
            root.send(
                    FrameType.ABORT,
                    sequence(),
                    Cause.of(Cause.Kind.ABORTED, reason, rank()).bytes(),
                    Deadline.after(timeouts.notice()));
        } catch (IOException ignored) {
            // the server is gone or stuck: the others learn of it from the server's end or their deadline
        }
    }

    @Override
    public boolean replacement() {
        return claim == FrameRules.Claim.REPLACE;
    }

    @Override
    public boolean joining() {
        return claim == FrameRules.Claim.GROW;
    }

    /** A replacement first waits until the server takes it in, at the survivors' operation, which it numbers on from. */
    @Override
    protected int[] doReunite(Deadline deadline) {
        if (state().phase() == JobState.Phase.AWAITING_TAKE_IN) {
            awaitRejoin(deadline, "reunion");
        }
        tellServer(
                FrameType.REUNION,
                ByteBuffer.allocate(Long.BYTES)
                        .putLong(deadline.total().toMillis())
                        .array(),
                deadline);
        return BitSet.valueOf(receive((size() + 7) / 8, deadline)).stream().toArray();
    }

    /**
     * A process that joins first waits until the server takes it in, at the members' operation, which it numbers on
     * from. The members wait for the processes that join up to their own timeout, and the answer may take as long
     * again to gather.
     */
    @Override
    protected Growth doGrow(int added, Deadline deadline) {
        if (state().phase() == JobState.Phase.AWAITING_TAKE_IN) {
            awaitRejoin(deadline, "growth");
        }
        tellServer(
                FrameType.GROW,
                ByteBuffer.allocate(FrameType.GROW.maxBytes(0))
                        .putLong(deadline.total().toMillis())
                        .putInt(added)
                        .array(),
                deadline);
        ByteBuffer answer =
                ByteBuffer.wrap(receive(Integer.BYTES + Rendezvous.MAX_REASON_BYTES, deadline.extendedBy(timeout())));
        int grown = answer.getInt();
        String failure =
                answer.hasRemaining() ? StandardCharsets.UTF_8.decode(answer).toString() : null;
        return new Growth(grown, failure);
    }

    /** What this process waits for the members to take it in as, for messages: "the replacement of rank 1". */
    private String waiting() {
        return (claim == FrameRules.Claim.REPLACE ? "the replacement of rank " : "the process that joins as rank ")
                + rank();
    }

    @Override
    public Timeouts timeouts() {
        return timeouts;
    }

    /** Waits until the server takes this process in at the members' {@code operation} ("reunion"). */
    private void awaitRejoin(Deadline deadline, String operation) {
        Channel.Frame frame;
        try {
            frame = news(
                    FrameRules.Phase.AWAITING_REJOIN,
                    () -> root.receive(sequence(), 0, deadline.extendedBy(timeouts.verdictGrace())));
        } catch (IOException e) {
            throw fail(failure(e, deadline));
        }
        if (frame.type() == FrameType.ABORT || frame.type() == FrameType.FENCED) {
            throw fail(BootstrapException.remote(
                    rank(),
                    endOf(frame) + " (reported by " + server + " while " + waiting() + " waited for the members)"));
        }
        if (frame.type() == FrameType.LEAVE) {
            throw fail(BootstrapException.failed(
                    rank(), server + " closed the rendezvous before it took " + waiting() + " in", null));
        }
        continueAt(frame.operation(), operation);
    }

    @Override
    protected Survivors doAllGatherOfSurvivors(byte[] value, Deadline deadline) {
        return ServedOperations.survivors(served(FrameType.SURVIVORS, value, deadline), rank(), operation());
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        return ServedOperations.allGather(served(FrameType.DATA, value, deadline), rank(), operation());
    }

    private void tellServer(FrameType type, byte[] value, Deadline deadline) {
        try {
            root.send(type, sequence(), value, deadline);
        } catch (SocketException e) {
            throw fail(saidBeforeItEnded().orElseGet(() -> failure(e, deadline)));
        } catch (IOException e) {
            throw fail(failure(e, deadline));
        }
    }

    /**
     * Why the server ended the job or excluded this rank, where it said so before the connection ended under a send
     * (the server closes a connection right after it says why, and a heartbeat to it may have found it closed first).
     */
    private Optional<BootstrapException> saidBeforeItEnded() {
        try {
            Channel.Frame frame = news(
                    FrameRules.Phase.OPERATION,
                    () -> root.receive(sequence(), Channel.gatheredBytes(size()), Deadline.after(timeouts.notice())));
            return frame.type() == FrameType.ABORT || frame.type() == FrameType.FENCED
                    ? Optional.of(reportedEnd(frame))
                    : Optional.empty();
        } catch (IOException nothingSaid) {
            return Optional.empty();
        }
    }

    /** The job's end (ABORT) or this rank's exclusion (FENCED), as the server reported it during this operation. */
    private BootstrapException reportedEnd(Channel.Frame frame) {
        return BootstrapException.remote(
                rank(), endOf(frame) + " (reported by " + server + " during " + operation() + ")");
    }

    private byte[] receive(int maxBytes, Deadline deadline) {
        Channel.Frame frame;
        try {
            frame = news(
                    FrameRules.Phase.OPERATION,
                    () -> root.receive(sequence(), maxBytes, deadline.extendedBy(timeouts.verdictGrace())));
        } catch (IOException e) {
            throw fail(failure(e, deadline));
        }
        if (frame.type() == FrameType.ABORT || frame.type() == FrameType.FENCED) {
            throw fail(reportedEnd(frame));
        }
        if (frame.type() != FrameType.DATA) {
            throw fail(
                    BootstrapException.failed(rank(), server + " closed the rendezvous during " + operation(), null));
        }
        return frame.bytes();
    }

    /**
     * The server's next message legal in {@code phase}, as {@code read} reads it, after logging the claims it refused;
     * an illegal one fails naming it.
     */
    private Channel.Frame news(FrameRules.Phase phase, Channel.IoStep<Channel.Frame> read) throws IOException {
        while (true) {
            Channel.Frame frame = FrameRules.check(phase, read.run());
            if (frame.type() != FrameType.REFUSED) {
                return frame;
            }
            logRefused(frame.cause().text());
        }
    }

    /** Why the server ended the job (ABORT), or excluded this rank (FENCED: this rank's job is over for it). */
    private String endOf(Channel.Frame frame) {
        if (frame.type() == FrameType.FENCED) {
            state().on(JobState.Event.EXCLUDED, frame.cause().text());
        }
        return frame.cause().text();
    }

    /** A claim the server turned away while this rank waits: a rank that never joins may be the one refused. */
    private void logRefused(String what) {
        LOG.log(System.Logger.Level.WARNING, () -> server + " turned a claim away: " + what);
    }

    /**
     * Why the server excluded this rank, asked after {@code e} ended its connection or was the server's silence,
     * {@code when} ("during allgather #3"), as the failure says it; null where it did not, or cannot say.
     */
    private String excludedAfter(IOException e, String when) {
        boolean silent = e instanceof Channel.Silence;
        if (!silent && !(e instanceof EOFException) && !(e instanceof SocketException)) {
            return null;
        }
        String exclusion = exclusion();
        if (exclusion == null) {
            return null;
        }
        state().on(JobState.Event.EXCLUDED, exclusion);
        return exclusion + " (" + server + " said so when this rank asked, once "
                + (silent
                        ? "it had heard nothing from it for " + Settings.formatDuration(heartbeatTimeout)
                        : "its connection had ended")
                + " " + when + ")";
    }

    private BootstrapException failure(IOException e, Deadline deadline) {
        String what;
        String exclusion = excludedAfter(e, "during " + operation());
        if (exclusion != null) {
            what = exclusion;
        } else if (e instanceof Channel.Silence) {
            what = server + " sent nothing, not even a heartbeat, during " + operation() + ": " + e.getMessage()
                    + " (it is stopped, cut off from this host, or gone)";
        } else if (e instanceof SocketTimeoutException) {
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
        beat.close();
        if (!failed()) {
            try {
                root.send(FrameType.LEAVE, sequence(), new byte[0], Deadline.after(timeouts.notice()));
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
