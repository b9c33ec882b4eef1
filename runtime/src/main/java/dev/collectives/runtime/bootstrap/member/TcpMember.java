package dev.collectives.runtime.bootstrap.member;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.Exchange;
import dev.collectives.runtime.bootstrap.HostedServer;
import dev.collectives.runtime.bootstrap.JobState;
import dev.collectives.runtime.bootstrap.Progress;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.Timeouts;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.EventLoop;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import dev.collectives.runtime.bootstrap.wire.ServedOperations;
import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A member of a TCP rendezvous: any rank, rank 0 too, of the job a {@code JobServer} serves (hosted by rank 0's
 * process, or by a process of its own). It joins the server on its caller's thread ({@link MemberJoin}), then hands
 * its connection to its process's one {@link MemberLoop}, which reads, writes and beats for every member of the
 * process; it takes part in each operation through {@link ServedOperations}, its caller waiting for the server's
 * answer. Inside an operation it waits a little past the deadline, so that the server, which watches every rank, can
 * say which rank is at fault before this one would have to guess. Where this rank's process hosts the server,
 * closing the member closes the server too.
 */
public final class TcpMember extends Exchange {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private final MemberConnection root;
    /** Where the server is and the job's token: a rank whose connection ended asks it whether it was excluded. */
    private final RendezvousEndpoint endpoint;

    private final JobToken token;
    /** Where this rank's communicators stand, which its heartbeats carry. */
    private final Set<Supplier<Progress.Place>> reported = new CopyOnWriteArraySet<>();
    /** How long this rank waits for a sign of life from the server: its own heartbeat timeout, or the server's if longer. */
    private final Duration heartbeatTimeout;
    /** This rank's waits, derived from its operation timeout and {@link #heartbeatTimeout}. */
    private final Timeouts timeouts;
    /** Who serves the rendezvous, for messages: "rank 0 at tcp://host:port" or "the rendezvous server at …". */
    private final String server;
    /** Whether a process of its own serves the rendezvous (else rank 0's, which dies with rank 0). */
    private final boolean standalone;
    /** The server this rank's process hosts (rank 0's, by default), closed after this member; else null. */
    private final HostedServer hosted;
    /** How this process joined: as a rank of the job, in the place of one that died, or at the job's next growth. */
    private final FrameRules.Claim claim;
    /** The watch of the job under way or last ({@link #doWatch}), or null. */
    private volatile MemberWatch watch;
    /** Set once this rank aborts or closes: its connection ending then is no news for a watcher. */
    private volatile boolean ending;

    /** Whether this rank aborted or closed: its connection ending then is no news for a watcher. */
    boolean ending() {
        return ending;
    }

    /** Who serves the rendezvous, for messages: "rank 0 at tcp://host:port". */
    String server() {
        return server;
    }

    private TcpMember(
            RendezvousEndpoint endpoint,
            MemberJoin.Joined joined,
            int size,
            Duration timeout,
            Duration heartbeatTimeout,
            JobToken token,
            FrameRules.Claim claim,
            HostedServer hosted)
            throws IOException {
        super(joined.rank(), size, endpoint.toString(), timeout);
        this.endpoint = endpoint;
        this.token = token;
        this.server = MemberJoin.serverAt(endpoint, joined.greeting().standalone());
        this.standalone = joined.greeting().standalone();
        this.hosted = hosted;
        this.heartbeatTimeout = heartbeatTimeout;
        this.timeouts = new Timeouts(timeout, heartbeatTimeout);
        this.claim = claim;
        byte[] rankBytes = JobToken.ints(joined.rank());
        this.root = MemberConnection.serve(
                MemberLoop.shared(),
                joined.socket(),
                joined.unread(),
                joined.sessionKey(),
                heartbeatTimeout,
                new Timeouts(timeout, joined.greeting().heartbeatTimeout()),
                () -> Channel.gatheredBytes(size()),
                () -> concat(rankBytes, Progress.of(reported).encode()));
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
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
    public static TcpMember join(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            JobToken token,
            Duration timeout,
            Duration heartbeatTimeout,
            FrameRules.Claim claim,
            boolean standalone,
            HostedServer hosted) {
        MemberJoin.Joined joined;
        try {
            joined = MemberJoin.join(endpoint, rank, size, token, Deadline.after(timeout), claim, standalone);
        } catch (BootstrapException e) {
            EventLoop.closeQuietly(hosted);
            throw e;
        }
        Duration silence = max(heartbeatTimeout, joined.greeting().heartbeatTimeout());
        // a process that joins knows the job's size once it grew: until then, only its own number
        int known = claim == FrameRules.Claim.GROW ? joined.rank() + 1 : size;
        TcpMember member;
        try {
            member = new TcpMember(endpoint, joined, known, timeout, silence, token, claim, hosted);
        } catch (IOException e) {
            EventLoop.closeQuietly(joined.socket());
            EventLoop.closeQuietly(hosted);
            throw BootstrapException.failed(rank, "its connection to " + endpoint + " failed: " + e, e);
        }
        member.joined();
        return member;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Why the server excluded this rank (see {@link MemberJoin#exclusion}), or null. */
    private String exclusion() {
        return MemberJoin.exclusion(endpoint, server, rank(), size(), token, timeouts.fateWait(), timeouts.notice());
    }

    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        return served(FrameType.BROADCAST, value == null ? new byte[0] : value, deadline)
                .values()[0];
    }

    /** Every rank's value for this operation, or why it is gone, as the server answers. */
    private Survivors served(FrameType type, byte[] value, Deadline deadline) {
        tellServer(type, value);
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
     * Hears what the server sends from now on, as it comes: the job's end (an ABORT, with why), a rank's death
     * (GONE), or that rank 0 closed the job (LEAVE). A connection that ends otherwise, while this rank neither aborted
     * nor closed, means the server is gone (with rank 0's process, where that hosts it).
     */
    @Override
    protected void doWatch(Consumer<Cause> onFailure) {
        root.post(FrameType.WATCH, sequence(), new byte[0]);
        MemberWatch started = new MemberWatch(this, root, onFailure);
        watch = started;
        root.onNews(started::wake);
    }

    /**
     * Asks the server to end the watch, and waits for the watch to hear it end; where it heard of a death or the
     * job's end first, that is why the watch cannot end here.
     */
    @Override
    protected String doUnwatch() {
        tellServer(FrameType.UNWATCH, new byte[0]);
        try {
            watch.over().get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            return server + " did not end the watch of rank " + rank() + " within "
                    + Settings.formatDuration(timeout());
        }
        return state().phase() == JobState.Phase.WATCHED
                ? null
                : "the job is " + state().phase().words + ": " + state().news();
    }

    /** Whether the watch under way, or the last one, is over: it heard the job's news, or its end. */
    public CompletableFuture<Void> watchOver() {
        return watch.over();
    }

    /** The server is lost, as {@code why} says: where rank 0's process hosts it, that blames rank 0. */
    Cause serverLost(String why) {
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
        root.post(
                FrameType.STALL,
                sequence(),
                Cause.of(Cause.Kind.STALLED, where, rank()).bytes());
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
        // the connection closes once it went out; where the server is gone or stuck, the others learn of it from
        // the server's end or their deadline
        root.post(
                FrameType.ABORT,
                sequence(),
                Cause.of(Cause.Kind.ABORTED, reason, rank()).bytes());
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
                        .array());
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
                        .array());
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
                    FrameRules.Phase.AWAITING_REJOIN, () -> root.next(deadline.extendedBy(timeouts.verdictGrace())));
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

    /**
     * Queues {@code value} for the server; where the connection ends first, the answer's wait hears why, after what
     * the server said before it ended.
     */
    private void tellServer(FrameType type, byte[] value) {
        root.post(type, sequence(), value);
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
                    () -> FrameRules.checkOperationAnswer(
                            root.next(deadline.extendedBy(timeouts.verdictGrace())), sequence(), maxBytes));
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
    String endOf(Channel.Frame frame) {
        if (frame.type() == FrameType.FENCED) {
            state().on(JobState.Event.EXCLUDED, frame.cause().text());
        }
        return frame.cause().text();
    }

    /** A claim the server turned away while this rank waits: a rank that never joins may be the one refused. */
    void logRefused(String what) {
        LOG.log(System.Logger.Level.WARNING, () -> server + " turned a claim away: " + what);
    }

    /**
     * Why the server excluded this rank, asked after {@code e} ended its connection or was the server's silence,
     * {@code when} ("during allgather #3"), as the failure says it; null where it did not, or cannot say.
     */
    String excludedAfter(IOException e, String when) {
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
        if (!failed()) {
            try {
                root.post(FrameType.LEAVE, sequence(), new byte[0])
                        .get(timeouts.notice().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // the server is gone already, or takes nothing: nothing is left to tell it
            }
        }
        root.closeAfterSending(timeouts.notice());
        if (hosted != null) {
            hosted.close();
        }
    }
}
