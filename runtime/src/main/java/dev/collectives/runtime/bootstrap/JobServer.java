package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import java.io.IOException;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * The server of a TCP rendezvous, which every rank, rank 0 too, joins as a member: hosted by rank 0's process
 * ({@link #inRankZeroProcess}), whose death then ends the job, or by a process of its own ({@link #start}, which
 * {@link dev.collectives.runtime.RendezvousServer} wraps for users), which outlives any rank.
 *
 * <p>For each operation it takes every live rank's message and answers each rank with all of them; the ranks check
 * the answer themselves ({@link ServedOperations}), the same on every rank. An operation that needs every rank (all
 * but an allgather of survivors and a reunion) ends the job when a rank is gone or closed its rendezvous. It watches
 * the job: a rank that ends the job ends it on every rank, a rank whose process dies once the job formed is news to
 * the ranks that watch (they may meet again without it), ranks that stall come to a verdict naming those that never
 * arrived, and a process that proves the token replaces a dead rank at the survivors' next reunion. A standalone
 * server serves until every rank has left or died, or the job ended ({@link #awaitEnd}); one hosted by rank 0 until
 * rank 0 closes it.
 */
public final class JobServer implements Door, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");
    /** How long the ranks may take to join, and each operation, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_TIMEOUT = Settings.DEFAULT_TIMEOUT;
    /** How long a rank may be silent before it is declared dead, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Settings.DEFAULT_HEARTBEAT_TIMEOUT;

    private final RendezvousEndpoint endpoint;
    /** The job's size, which a growth raises; guarded by the lock. */
    private int size;

    private final Duration timeout;
    private final Duration heartbeatTimeout;
    /** Every wait of this server, derived from the two above. */
    private final Timeouts timeouts;
    /** Whether rank 0's process hosts this server (else it runs in a process of its own). */
    private final boolean hostedByRankZero;
    /** Until when the ranks may join; also how long a failed job's late arrivals are answered at least. */
    private final Deadline joinDeadline;

    private final ServerSocket socket;
    private final TcpAdmission admission;
    private final ExecutorService threads =
            Executors.newCachedThreadPool(TcpAdmission.smallDaemonThreads("collectives-rendezvous-server"));

    private final Object lock = new Object();
    /** Held while the members are told something, so that nothing closes their connections meanwhile. */
    private final Object telling = new Object();

    private final Roster roster;
    private final StallVerdict stalls;
    private final Members members;
    private final DeathNews news;
    private final Liveness liveness;
    /** Who watches the job from outside: its live view, hang verdict and page. */
    private final JobView view;
    /** The job's live page, where the user turned it on. */
    private Optional<JobPage> page = Optional.empty();
    /** The server's heartbeats to each member that joined; null where none beat. */
    private Heartbeats.Beat[] beats;
    /** Why each rank was excluded from the job, or null: an excluded process that wakes asks. */
    private String[] exclusions;
    /** The connections whose end has been dealt with (a death declared, or the member left), never to be again. */
    private final Set<Channel> ended = new HashSet<>();
    /** The heartbeats this server sent to its members, and received from them. */
    private final LongAdder beatsSent = new LongAdder();

    private final LongAdder beatsReceived = new LongAdder();

    private String fatal;
    private boolean closed;
    /** Whether a rank ever watched the job: closing it then tells each member, so that its watcher hears no failure. */
    private boolean watched;
    /** The last operation served. */
    private volatile int sequence;
    /** The operation being served, for messages ("allgather #2"); null between operations. */
    private String serving;
    /** The member whose message the operation under way waits for; -1 while it waits for none. */
    private int awaited = -1;

    private JobServer(
            RendezvousEndpoint endpoint,
            int size,
            JobToken token,
            Timeouts timeouts,
            Duration handshakeLimit,
            boolean hostedByRankZero,
            Duration hangVerdictAfter) {
        this.endpoint = endpoint;
        this.size = size;
        this.timeout = timeouts.operation();
        this.heartbeatTimeout = timeouts.heartbeat();
        this.timeouts = timeouts;
        this.hostedByRankZero = hostedByRankZero;
        this.joinDeadline = Deadline.after(timeout);
        this.liveness = new Liveness(size, heartbeatTimeout, System::nanoTime);
        this.beats = new Heartbeats.Beat[size];
        this.exclusions = new String[size];
        String name = hostedByRankZero ? "rank 0 at " + endpoint : "the rendezvous server at " + endpoint;
        this.roster = new Roster(size, hostedByRankZero, name);
        this.members = new Members(size);
        this.stalls = new StallVerdict(
                size, timeouts.stallGrace(), lock, members::hasLeft, () -> fatal != null, this::endJob);
        this.news = new DeathNews(size);
        this.view = new JobView(name, size, hangVerdictAfter, System::nanoTime);
        this.socket = TcpAdmission.listen(endpoint, hostedByRankZero ? "rank 0" : "the rendezvous server");
        this.admission =
                new TcpAdmission(socket, token, this, handshakeLimit.compareTo(timeout) < 0 ? handshakeLimit : timeout);
    }

    /**
     * Serves a job of {@code size} ranks at {@code endpoint} in a process of its own, admitting those that prove they
     * hold {@code jobToken}; each operation, and the joining, within {@code timeout}.
     */
    public static JobServer start(RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout) {
        return start(endpoint, size, jobToken, timeout, DEFAULT_HEARTBEAT_TIMEOUT);
    }

    /**
     * As {@link #start(RendezvousEndpoint, int, String, Duration)}; a rank that sends nothing, not even a heartbeat,
     * for {@code heartbeatTimeout} is declared dead and excluded from the job (the ranks beat at a sixth of it).
     */
    public static JobServer start(
            RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout, Duration heartbeatTimeout) {
        return start(endpoint, size, jobToken, timeout, heartbeatTimeout, JobView.hangVerdictSetting());
    }

    /**
     * As {@link #start(RendezvousEndpoint, int, String, Duration, Duration)}; ranks that wait {@code hangVerdictAfter}
     * in an entry another rank never enqueued are named in the hang verdict.
     */
    static JobServer start(
            RendezvousEndpoint endpoint,
            int size,
            String jobToken,
            Duration timeout,
            Duration heartbeatTimeout,
            Duration hangVerdictAfter) {
        if (endpoint.kind() != RendezvousEndpoint.Kind.TCP || size < 1) {
            throw BootstrapException.settings(
                    -1, "a rendezvous server serves a tcp:// endpoint for one rank or more, not " + endpoint);
        }
        Timeouts timeouts = new Timeouts(timeout, heartbeatTimeout);
        return started(new JobServer(
                endpoint, size, JobToken.of(jobToken, -1), timeouts, timeouts.handshake(), false, hangVerdictAfter));
    }

    /**
     * The server rank 0's process hosts for its job, which rank 0 then joins as every rank does; a rank silent for
     * {@code heartbeatTimeout} is declared dead and excluded, as by a server of its own.
     */
    static JobServer inRankZeroProcess(
            RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout, Duration heartbeatTimeout) {
        Timeouts timeouts = new Timeouts(timeout, heartbeatTimeout);
        return started(new JobServer(
                endpoint, size, token, timeouts, timeouts.handshake(), true, JobView.hangVerdictSetting()));
    }

    /** As {@link #inRankZeroProcess(RendezvousEndpoint, int, JobToken, Duration, Duration)}; tests choose the handshake limit. */
    static JobServer inRankZeroProcess(
            RendezvousEndpoint endpoint,
            int size,
            JobToken token,
            Duration timeout,
            Duration heartbeatTimeout,
            Duration handshakeLimit) {
        return started(new JobServer(
                endpoint,
                size,
                token,
                new Timeouts(timeout, heartbeatTimeout),
                handshakeLimit,
                true,
                JobView.hangVerdictSetting()));
    }

    private static JobServer started(JobServer server) {
        try {
            server.page = JobPage.ifTurnedOn(server.view, server.endpoint.toString());
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        server.admission.open();
        server.threads.execute(server::serveOperations);
        server.threads.execute(server::watchSilence);
        return server;
    }

    /** Where it serves. */
    public RendezvousEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Returns once every rank has joined: a rank's death before then ends the job, as while joining; tests order a
     * death after it by this.
     */
    void awaitJoined() throws InterruptedException {
        synchronized (lock) {
            while (!roster.complete()) {
                lock.wait();
            }
        }
    }

    /**
     * Waits until every rank has joined, and returns null; or why the job ended first (the ranks that did not join
     * by the deadline for joining among the reasons).
     */
    String awaitFormed() {
        synchronized (lock) {
            while (fatal == null && !closed && !roster.complete()) {
                waitForNews(null);
            }
            return fatal != null ? fatal : closed ? "the rendezvous at " + endpoint + " was closed" : null;
        }
    }

    /** Returns once {@code count} processes wait to join the job at its next growth: tests order their events by it. */
    void awaitJoining(int count) throws InterruptedException {
        synchronized (lock) {
            while (roster.joining().size() != count) {
                lock.wait();
            }
        }
    }

    /** Returns once an operation waits for member {@code rank}'s message: tests order their events by it. */
    void awaitWaitingFor(int rank) throws InterruptedException {
        synchronized (lock) {
            while (awaited != rank) {
                lock.wait();
            }
        }
    }

    /**
     * Waits until the job is over, and says how it ended: empty once every rank has left or died (with the deaths
     * listed by {@link #deaths}), else why the job failed (ranks that did not join within the timeout among them).
     */
    public Optional<String> awaitEnd() throws InterruptedException {
        synchronized (lock) {
            while (fatal == null && !over()) {
                lock.wait();
            }
            return Optional.ofNullable(fatal);
        }
    }

    /** How many heartbeats this server has sent to its ranks so far (each a message of 45 bytes). */
    public long heartbeatsSent() {
        return beatsSent.sum();
    }

    /** How many heartbeats this server has received from its ranks so far (each a message of 45 bytes). */
    public long heartbeatsReceived() {
        return beatsReceived.sum();
    }

    /** What this server tells of the job as it runs: its live view, which its page and metrics show. */
    JobView view() {
        return view;
    }

    /** Where the job's live page is, where the user turned it on ({@link Settings#JOB_PAGE}). */
    public Optional<java.net.URI> page() {
        return page.map(JobPage::address);
    }

    /** What the server tells its observer, stamped now. */
    private JobObserver observer() {
        return view;
    }

    /** Why each rank that died while the job ran is gone, in the order they died. */
    public List<String> deaths() {
        synchronized (lock) {
            return news.deaths();
        }
    }

    private boolean over() {
        return roster.complete() && members.over();
    }

    // ---- the door ------------------------------------------------------------------------------------------------

    @Override
    public boolean hostedByRankZero() {
        return hostedByRankZero;
    }

    @Override
    public String ended() {
        synchronized (lock) {
            return fatal != null ? "the job at " + endpoint + " ended: " + fatal : null;
        }
    }

    /**
     * {@code rank} (as it claims) was turned away with why the job ended; once every rank missing has been, no one
     * is left to answer and a closed server stops listening.
     */
    @Override
    public void toldLate(int rank) {
        boolean done;
        synchronized (lock) {
            roster.toldLate(rank);
            done = closed && !roster.lateRanksUntold();
        }
        if (done) {
            TcpAdmission.closeQuietly(socket);
        }
    }

    @Override
    public String claim(int rank, int claimedSize, String from, boolean replacement) {
        synchronized (lock) {
            return replacement
                    ? roster.claimReplacement(rank, claimedSize, from, members.isGone(rank), members.isReplacing(rank))
                    : roster.claim(rank, claimedSize, from);
        }
    }

    /** Tells every member that joined of a claim turned away, so that each logs it at once (best effort). */
    @Override
    public void refused(String what) {
        observer().refused(what, System.nanoTime());
        byte[] text = Channel.truncate(what);
        synchronized (telling) {
            List<Channel> joined;
            synchronized (lock) {
                joined = roster.members();
            }
            Deadline brief = Deadline.after(timeouts.notice());
            for (Channel member : joined) {
                try {
                    member.send(Channel.REFUSED, sequence, text, brief);
                } catch (IOException ignored) {
                    // that member is gone or stuck: its listener or the heartbeats say so
                }
            }
        }
    }

    @Override
    public Duration heartbeatTimeout() {
        return heartbeatTimeout;
    }

    @Override
    public String exclusion(int rank) {
        synchronized (lock) {
            return rank >= 0 && rank < exclusions.length ? exclusions[rank] : null;
        }
    }

    /**
     * Gives the process at {@code from}, which joins the job at its next growth, the lowest number after the job's
     * ranks that no other process waiting to join holds, making room for it.
     */
    @Override
    public int claimJoining(String from) {
        synchronized (lock) {
            int number = roster.nextJoining();
            if (number >= roster.capacity()) {
                makeRoom(number + 1);
            }
            return roster.claimJoining(from);
        }
    }

    /** Makes room for {@code capacity} numbers in what the server keeps per rank; called with the lock held. */
    private void makeRoom(int capacity) {
        roster.makeRoom(capacity);
        members.makeRoom(capacity);
        liveness.makeRoom(capacity);
        news.makeRoom(capacity);
        beats = Arrays.copyOf(beats, capacity);
        exclusions = Arrays.copyOf(exclusions, capacity);
    }

    @Override
    public void unclaim(int rank) {
        synchronized (lock) {
            roster.unclaim(rank);
        }
    }

    /**
     * Its messages are read as they come from now on. If the job ended while it was being admitted, it is told why
     * instead (the ending's own message went out without it).
     */
    @Override
    public void join(int rank, Channel member, FrameRules.Claim claim, Answer answer) throws IOException {
        String ended;
        synchronized (telling) {
            answer.send();
            synchronized (lock) {
                observer()
                        .joined(
                                rank,
                                roster.from(rank),
                                claim == FrameRules.Claim.GROW
                                        ? JobObserver.Arrival.JOINER
                                        : claim == FrameRules.Claim.REPLACE
                                                ? JobObserver.Arrival.REPLACEMENT
                                                : JobObserver.Arrival.LAUNCHED,
                                System.nanoTime());
                if (claim == FrameRules.Claim.GROW) {
                    roster.admitJoining(rank, member);
                    members.admitJoining(rank);
                    LOG.log(
                            System.Logger.Level.DEBUG,
                            () -> "a process that joins at the next growth, as rank " + rank + ", came to " + endpoint);
                } else if (claim == FrameRules.Claim.REPLACE) {
                    roster.replace(rank, member);
                    members.replaced(rank);
                    news.replaced(rank);
                    LOG.log(
                            System.Logger.Level.DEBUG,
                            () -> "a replacement of rank " + rank + " joined at " + endpoint);
                } else {
                    roster.join(rank, member);
                }
                lock.notifyAll();
                ended = closed ? "the rendezvous at " + endpoint + " was closed" : fatal;
                if (ended == null) {
                    liveness.heard(rank);
                    stopBeats(rank); // a dead rank's, where a replacement takes its place
                    beats[rank] = Heartbeats.start(member, -1, timeouts, beatsSent);
                    threads.execute(() -> listen(rank, member)); // before close() can shut the threads down
                }
            }
            if (ended != null) {
                roster.tellEnded(
                        member, ended, sequence, Deadline.after(timeouts.notice()), hostedByRankZero && rank == 0);
                member.close();
            }
        }
    }

    /** Stops the heartbeats to rank {@code rank}'s connection, if any. */
    private void stopBeats(int rank) {
        if (beats[rank] != null) {
            beats[rank].close();
            beats[rank] = null;
        }
    }

    // ---- each member's messages ------------------------------------------------------------------------------

    private void listen(int rank, Channel member) {
        while (true) {
            Channel.Frame frame;
            try {
                frame = member.receiveAny();
                FrameRules.check(phaseOf(rank), frame); // its phase once it came
            } catch (ProtocolException e) {
                fence(rank, member, "it sent " + e.getMessage());
                return;
            } catch (IOException e) {
                died(rank, member, e);
                return;
            }
            synchronized (lock) {
                if (!ended.contains(member)) {
                    liveness.heard(rank);
                }
            }
            switch (frame.type()) {
                case Channel.HEARTBEAT -> {
                    beatsReceived.increment();
                    ByteBuffer beat = ByteBuffer.wrap(frame.bytes());
                    int says = beat.getInt();
                    if (says != rank) {
                        fence(rank, member, "it sent heartbeats for rank " + says);
                        return;
                    }
                    Progress progress;
                    try {
                        progress = Progress.decode(beat);
                    } catch (RuntimeException e) {
                        fence(rank, member, "it sent a heartbeat whose progress does not read: " + e.getMessage());
                        return;
                    }
                    observer().beat(rank, progress, System.nanoTime());
                }
                case Channel.ABORT -> {
                    endJob(member.peer() + " ended the job: " + frame.text());
                    return;
                }
                case Channel.LEAVE -> {
                    synchronized (lock) {
                        if (members.isJoining(rank)) {
                            dropJoining(rank, member, member.peer() + " closed its rendezvous before the job grew");
                            return;
                        }
                        members.leave(rank);
                        observer().gone(rank, JobObserver.Fate.LEFT, "it closed its rendezvous", System.nanoTime());
                        ended.add(member);
                        liveness.forget(rank);
                        stopBeats(rank);
                        lock.notifyAll();
                    }
                    return;
                }
                case Channel.STALL -> stalls.stalled(rank, frame.text());
                case Channel.WATCH -> watch(rank, member);
                case Channel.UNWATCH -> unwatch(member, rank);
                default -> deliver(rank, member, frame); // an operation's message
            }
        }
    }

    /** Where member {@code rank}'s connection is, for which messages are legal from it. */
    private FrameRules.Phase phaseOf(int rank) {
        synchronized (lock) {
            return members.isReplacing(rank)
                    ? FrameRules.Phase.REPLACEMENT_WAITING
                    : members.isJoining(rank) ? FrameRules.Phase.JOINER_WAITING : FrameRules.Phase.MEMBER;
        }
    }

    /** When something happens, for messages: "while the ranks were joining", "during allgather #2". */
    private String when() {
        synchronized (lock) {
            return !roster.complete()
                    ? "while the ranks were joining"
                    : serving != null ? "during " + serving : "while the job ran";
        }
    }

    private void deliver(int rank, Channel member, Channel.Frame frame) {
        synchronized (lock) {
            if (members.deliver(rank, frame) == null) {
                news.operating(rank);
                lock.notifyAll();
                return;
            }
        }
        fence(
                rank,
                member,
                "it sent a message for operation #" + frame.operation() + " before its message for "
                        + "the operation before was used");
    }

    /** Member {@code rank} watches its job from now on: a death it has not heard of yet is news at once. */
    private void watch(int rank, Channel member) {
        String unheard;
        synchronized (lock) {
            watched = true;
            unheard = news.watch(rank);
        }
        if (unheard != null) {
            synchronized (telling) {
                Roster.tellGone(member, unheard, sequence, Deadline.after(timeouts.notice()));
            }
        }
    }

    /**
     * Member {@code rank} stops watching its job: where it heard of no death since it watched, it is told its watch
     * ends here (a death told already ended it).
     */
    private void unwatch(Channel member, int rank) {
        boolean watching;
        synchronized (lock) {
            watching = news.stopWatching(rank);
        }
        if (watching) {
            synchronized (telling) {
                try {
                    member.send(Channel.UNWATCH, sequence, new byte[0], Deadline.after(timeouts.notice()));
                } catch (IOException ignored) {
                    // that member is gone or stuck: its listener or the heartbeats say so
                }
            }
        }
    }

    /**
     * Member {@code rank}'s connection ended without its leaving: its process died, unless the job had ended. Before
     * the job formed, that ends it; afterwards it is news to the ranks that watch, and an operation that needs every
     * rank ends the job naming it.
     */
    private void died(int rank, Channel member, IOException e) {
        declareDead(rank, member, when -> "its connection ended " + when + " (" + e + ")", null);
    }

    /**
     * Declares rank {@code rank}, on {@code member}, dead, and excludes it from the job: it was silent past the
     * heartbeat timeout, or sent what a member may not (a message illegal in its phase, garbage, heartbeats for
     * another rank). It hears why (where it still reads) and its connection closes; if it wakes, asking again tells
     * it the same; only a replacement may take its place. The others hear of it as of a death.
     */
    private void fence(int rank, Channel member, String why) {
        boolean joining;
        synchronized (lock) {
            joining = members.isJoining(rank);
        }
        String exclusion = "rank " + rank + " was excluded from the job at " + endpoint + ": " + why
                + (joining ? "; it no longer waits to join" : "; only a replacement may take its place");
        if (!declareDead(rank, member, when -> why + " " + when, exclusion)) {
            return;
        }
        try {
            member.send(Channel.FENCED, sequence, Channel.truncate(exclusion), Deadline.after(timeouts.notice()));
        } catch (IOException ignored) {
            // it cannot hear it now: if it wakes, it asks
        }
        member.close();
    }

    /**
     * Declares the death of rank {@code rank} on {@code member}, {@code how} it died given when ("during allgather
     * #2"), excluded for {@code exclusion} where not null: every survivor that watches hears of it at once, the others
     * at their next operation; before every rank joined, it ends the job. Returns false where the job had ended, the
     * rank had left or its death on that connection was declared already.
     */
    private boolean declareDead(int rank, Channel member, Function<String, String> how, String exclusion) {
        String reason;
        boolean formed;
        List<Channel> told = new ArrayList<>();
        synchronized (lock) {
            if (closed || fatal != null || members.hasLeft(rank) || !ended.add(member)) {
                return false;
            }
            if (members.isJoining(rank)) { // not a rank yet: no news to the members, unless a growth waits for it
                dropJoining(rank, member, member.peer() + " is gone: " + how.apply("before the job grew"));
                return true;
            }
            liveness.forget(rank);
            if (roster.member(rank) == member) {
                stopBeats(rank);
            }
            if (exclusion != null) {
                exclusions[rank] = exclusion;
            }
            formed = roster.complete();
            reason = member.peer() + " is gone: " + how.apply(when());
            observer()
                    .gone(
                            rank,
                            exclusion != null ? JobObserver.Fate.FENCED : JobObserver.Fate.DIED,
                            reason,
                            System.nanoTime());
            if (formed) {
                members.died(rank, reason);
                news.died(rank, reason).forEach(r -> told.add(roster.member(r)));
                lock.notifyAll();
            }
        }
        if (!formed) {
            endJob(reason);
            return true;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "at " + endpoint + ": " + reason);
        synchronized (telling) {
            Deadline brief = Deadline.after(timeouts.notice());
            told.forEach(watcher -> Roster.tellGone(watcher, reason, sequence, brief));
        }
        return true;
    }

    /**
     * The process waiting to join as {@code number}, on {@code member}, no longer does, for {@code reason}: it died,
     * left, or was turned away. A growth that waits for it hears why; its number is free for another. Called with the
     * lock held.
     */
    private void dropJoining(int number, Channel member, String reason) {
        ended.add(member);
        liveness.forget(number);
        if (roster.member(number) == member) {
            stopBeats(number);
            roster.dropJoining(number);
        }
        members.dropJoining(number, reason);
        lock.notifyAll();
    }

    /** Declares dead, and excludes, every member silent past the heartbeat timeout, until the job ends. */
    private void watchSilence() {
        long every = timeouts.beatInterval().toNanos();
        while (true) {
            Map<Integer, Channel> silent = new TreeMap<>();
            synchronized (lock) {
                long next = System.nanoTime() + every;
                for (long left = every; !closed && fatal == null && left > 0; left = next - System.nanoTime()) {
                    waitForNews(Deadline.after(Duration.ofNanos(left)));
                }
                if (closed || fatal != null) {
                    return;
                }
                liveness.silent().forEach(r -> silent.put(r, roster.member(r)));
            }
            String why = "no heartbeat for " + Settings.formatDuration(heartbeatTimeout);
            silent.forEach((rank, member) -> fence(rank, member, why));
        }
    }

    // ---- operations ------------------------------------------------------------------------------------------

    /**
     * Once every rank has joined (or the job ends, naming those that did not, within the timeout), serves one
     * operation after the other, as the members' first messages for each arrive.
     */
    private void serveOperations() {
        String missing;
        synchronized (lock) {
            while (fatal == null && !closed && !roster.complete() && !joinDeadline.expired()) {
                waitForNews(joinDeadline);
            }
            missing = roster.complete() || closed ? null : roster.missing();
        }
        if (missing != null) {
            endJob(missing + " did not join at " + endpoint + " " + joinDeadline.within() + admission.turnedAway());
            return;
        }
        while (true) {
            Channel.Frame first;
            synchronized (lock) {
                while (fatal == null && !closed && (first = members.firstWaiting()) == null) {
                    waitForNews(null);
                }
                if (fatal != null || closed) {
                    return;
                }
                first = members.firstWaiting();
            }
            try {
                serve(first.operation(), first.type());
            } catch (IllegalStateException ended) {
                return; // the job ended: every member was told why
            }
        }
    }

    /** "broadcast #1", "allgather #2", "reunion #3": what a message of {@code type} takes part in. */
    private static String operationName(byte type, int operation) {
        String kind = switch (type) {
            case Channel.BROADCAST -> "broadcast";
            case Channel.REUNION -> "reunion";
            case Channel.GROW -> "growth";
            default -> "allgather";
        };
        return kind + " #" + operation;
    }

    /**
     * Operation {@code operation} of the kind its messages' {@code type} says: every live rank's message, and each
     * answered with all of them. A reunion first takes the survivors' messages, then waits for the replacement of
     * every dead rank for the shortest time the survivors gave, tells each replacement where it joins, takes their
     * messages, and answers with the ranks replaced. Only an allgather of survivors and a reunion go on without a rank
     * that is gone or left.
     */
    private void serve(int operation, byte type) {
        String name = operationName(type, operation);
        synchronized (lock) {
            serving = name;
        }
        observer().operationStarted(name, System.nanoTime());
        if (type == Channel.GROW) {
            new Growth(operation, name).serve();
            return;
        }
        int ranks = currentSize();
        Operation served = new Operation(operation, type, name, Deadline.after(timeout), ranks);
        BitSet replaced = new BitSet();
        if (type == Channel.REUNION) {
            survivors(ranks).stream().forEach(served::collect);
            replaced = awaitReplacements(operation, Deadline.after(served.shortestWait()));
            replaced.stream().forEach(served::collect);
        } else {
            IntStream.range(0, ranks).forEach(served::collect);
        }
        byte[] answer = type == Channel.REUNION
                ? Arrays.copyOf(replaced.toByteArray(), (ranks + 7) / 8)
                : Channel.gathered(new Rendezvous.Survivors(served.values, served.missing));
        answerAll(operation, answer, served.values);
    }

    /** The ranks below {@code ranks} whose process has not died. */
    private BitSet survivors(int ranks) {
        BitSet survivors = new BitSet();
        synchronized (lock) {
            IntStream.range(0, ranks).filter(r -> !members.isGone(r)).forEach(survivors::set);
        }
        return survivors;
    }

    /** Ends operation {@code operation}: each rank that took part ({@code values} not null) hears {@code answer}. */
    private void answerAll(int operation, byte[] answer, byte[][] values) {
        String name;
        synchronized (lock) {
            sequence = operation;
            name = serving;
            serving = null;
        }
        observer().operationAnswered(name, System.nanoTime());
        synchronized (telling) { // rank 0 last: where it hosts this server, it may close it once it has its answer
            for (int r = values.length - 1; r >= 0; r--) {
                if (values[r] != null) {
                    answer(r, operation, answer);
                }
            }
        }
    }

    private int currentSize() {
        synchronized (lock) {
            return size;
        }
    }

    private int capacity() {
        synchronized (lock) {
            return roster.capacity();
        }
    }

    /**
     * A growth of the job: every member's message (how long it waits for the processes that join, and how many it
     * asks for), then, within the shortest wait the members gave, the processes that hold the numbers after the job's
     * ranks, as many as asked; each is told where it joins and sends its message. The job then has its new size, which
     * every member and joiner hears. Where the members ask for different numbers, a member does not take part, fewer
     * processes came in time or one of them died first, every member hears why and the job goes on at its size; the
     * processes waiting to join are turned away with the reason. Those beyond the numbers asked for are turned away
     * saying so.
     */
    private final class Growth {
        private final int number;
        private final String name;
        private final int before;

        Growth(int number, String name) {
            this.number = number;
            this.name = name;
            this.before = currentSize();
        }

        void serve() {
            Deadline deadline = Deadline.after(timeout);
            Operation asked = new Operation(number, Channel.GROW, name, deadline, before);
            BitSet asking = survivors(before);
            asking.stream().forEach(asked::collect);
            String failure = disagreement(asking, asked.values);
            int added = failure == null ? addedBy(asked.values[asking.nextSetBit(0)]) : 0;
            if (failure == null) {
                failure = awaitJoiners(added, Deadline.after(asked.shortestWait()));
            }
            Operation joined = new Operation(number, Channel.GROW, name, deadline, before + added);
            if (failure == null) {
                turnAwayFrom(
                        before + added,
                        "the job at " + endpoint + " grew by the " + added + " processes it asked for, which came"
                                + " first; this one came beyond them");
                failure = takeIn(added, joined, deadline);
            }
            if (failure != null) {
                turnAwayFrom(before, "the growth of the job at " + endpoint + " failed: " + failure);
                LOG.log(System.Logger.Level.DEBUG, "at " + endpoint + ", " + name + " failed: " + failure);
            } else {
                synchronized (lock) {
                    size = before + added;
                    observer().size(size, System.nanoTime());
                    roster.grow(size);
                    members.grow(size);
                    stalls.grow(size);
                    IntStream.range(before, size).forEach(news::replaced);
                }
            }
            int after = failure == null ? before + added : before;
            byte[] reason = failure == null ? new byte[0] : Channel.truncate(failure);
            byte[] answer = ByteBuffer.allocate(Integer.BYTES + reason.length)
                    .putInt(after)
                    .put(reason)
                    .array();
            asking.stream().forEach(r -> joined.values[r] = asked.values[r]);
            answerAll(number, answer, failure == null ? joined.values : asked.values);
        }

        /** Why the members that take part cannot grow the job together, or null. */
        private String disagreement(BitSet asking, byte[][] values) {
            List<String> absent = new ArrayList<>();
            Map<Integer, List<Integer>> ranksByAdded = new TreeMap<>();
            asking.stream().forEach(r -> {
                if (values[r] == null) {
                    absent.add("rank " + r);
                } else {
                    ranksByAdded
                            .computeIfAbsent(addedBy(values[r]), a -> new ArrayList<>())
                            .add(r);
                }
            });
            if (!absent.isEmpty()) {
                return String.join(", ", absent) + " did not take part in " + name;
            }
            if (ranksByAdded.size() > 1) {
                return "the ranks asked for different numbers of processes to join: " + ranksByAdded;
            }
            return null;
        }

        /**
         * Waits until the processes that join hold the {@code added} numbers after the job's ranks; returns null, or
         * why not (how many came) once {@code wait} passed.
         */
        private String awaitJoiners(int added, Deadline wait) {
            synchronized (lock) {
                while (fatal == null && !closed && !wait.expired() && came(added) < added) {
                    waitForNews(wait);
                }
                if (fatal != null || closed) {
                    throw new IllegalStateException(fatal);
                }
                int came = came(added);
                return came == added
                        ? null
                        : name + " asked for " + added + (added == 1 ? " process" : " processes") + " to join, " + came
                                + " came to " + endpoint + " " + wait.within();
            }
        }

        /** How many of the {@code added} numbers after the job's ranks processes waiting to join hold. */
        private int came(int added) {
            return (int) IntStream.range(before, before + added)
                    .filter(members::isJoining)
                    .count();
        }

        /** Tells each process that joins where the members take it in, and takes its message; null, or why not. */
        private String takeIn(int added, Operation joined, Deadline deadline) {
            for (int r = before; r < before + added; r++) {
                Channel joiner;
                synchronized (lock) {
                    joiner = members.isJoining(r) ? roster.member(r) : null;
                }
                try {
                    if (joiner == null) {
                        throw new IOException("it left");
                    }
                    synchronized (telling) {
                        joiner.send(Channel.REJOIN, number, new byte[0], deadline);
                    }
                } catch (IOException e) {
                    return "the process that joins as rank " + r + " is gone: it was not told where (" + e + ")";
                }
            }
            IntStream.range(before, before + added).forEach(joined::collect);
            return IntStream.range(before, before + added)
                    .filter(r -> joined.values[r] == null)
                    .mapToObj(r -> "the process that joins as rank " + r + " did not take part: " + joined.missing[r])
                    .findFirst()
                    .orElse(null);
        }

        /** Turns each process waiting to join from number {@code from} on away, telling it {@code reason}. */
        private void turnAwayFrom(int from, String reason) {
            List<Channel> turnedAway = new ArrayList<>();
            synchronized (lock) {
                for (int r : roster.joining()) {
                    if (r >= from && members.isJoining(r)) {
                        Channel joiner = roster.member(r);
                        turnedAway.add(joiner);
                        dropJoining(r, joiner, "it was turned away: " + reason);
                    }
                }
            }
            synchronized (telling) {
                Deadline brief = Deadline.after(timeouts.notice());
                turnedAway.forEach(joiner -> {
                    roster.tellEnded(joiner, reason, sequence, brief, true);
                    joiner.close();
                });
            }
        }
    }

    /** How many processes a member's growth message asks for. */
    private static int addedBy(byte[] message) {
        return ByteBuffer.wrap(message).getInt(Long.BYTES);
    }

    /** The messages of one operation, as they are taken: each rank's value, or why it is missing. */
    private final class Operation {
        final int number;
        final byte type;
        final String name;
        final Deadline deadline;
        final byte[][] values;
        final String[] missing;

        /** Operation {@code number} among {@code ranks} numbers (the ranks, and in a growth those that join). */
        Operation(int number, byte type, String name, Deadline deadline, int ranks) {
            this.number = number;
            this.type = type;
            this.name = name;
            this.deadline = deadline;
            this.values = new byte[ranks][];
            this.missing = new String[ranks];
        }

        /** Takes rank {@code rank}'s message; the job ends where it is missing and the operation needs every rank. */
        void collect(int rank) {
            Channel.Frame frame = take(rank, name, deadline);
            if (frame == null) {
                synchronized (lock) {
                    missing[rank] = members.hasLeft(rank)
                            ? roster.member(rank).peer() + " closed its rendezvous before " + name
                            : members.missing(rank);
                }
                if (type == Channel.DATA || type == Channel.BROADCAST) {
                    throw ends(missing[rank]);
                }
            } else if (frame.operation() != number || frame.type() != type) {
                throw ends(roster.member(rank).peer() + " sent a message for "
                        + operationName(frame.type(), frame.operation()) + " during " + name
                        + " (the ranks called different operations)");
            } else {
                values[rank] = frame.bytes();
            }
        }

        /** The shortest time the members said they wait for the replacements (a reunion) or the joiners (a growth). */
        Duration shortestWait() {
            return Arrays.stream(values)
                    .filter(v -> v != null && v.length >= Long.BYTES)
                    .map(v -> Duration.ofMillis(ByteBuffer.wrap(v).getLong()))
                    .min(Duration::compareTo)
                    .orElse(timeout);
        }
    }

    /** Member {@code rank}'s message for the operation; null if it is gone or left; the job ends past the deadline. */
    private Channel.Frame take(int rank, String name, Deadline deadline) {
        synchronized (lock) {
            awaited = rank;
            lock.notifyAll();
            while (fatal == null && members.awaited(rank) && !deadline.expired()) {
                waitForNews(deadline);
            }
            awaited = -1;
            if (fatal != null) {
                throw new IllegalStateException(fatal);
            }
            if (!members.awaited(rank)) {
                news.operating(rank);
                return members.take(rank);
            }
        }
        throw ends(roster.member(rank).peer() + " did not take part in " + name + " at " + endpoint + " "
                + deadline.within());
    }

    /** Waits until every dead rank has a replacement, and tells each the number of the reunion, its first operation. */
    private BitSet awaitReplacements(int operation, Deadline deadline) {
        BitSet replaced;
        String failure;
        synchronized (lock) {
            while (fatal == null && !deadline.expired() && !members.unreplaced().isEmpty()) {
                waitForNews(deadline);
            }
            String missing = members.unreplaced();
            failure = fatal != null
                    ? fatal
                    : missing.isEmpty()
                            ? null
                            : "no replacement joined at " + endpoint + " " + deadline.within() + " for " + missing
                                    + admission.turnedAway();
            replaced = failure == null ? members.reunite() : new BitSet();
        }
        if (failure != null) {
            throw ends(failure);
        }
        replaced.stream().forEach(r -> {
            synchronized (telling) {
                try {
                    roster.member(r).send(Channel.REJOIN, operation, new byte[0], deadline);
                } catch (IOException e) {
                    throw ends(roster.member(r).peer() + " is gone: it did not take the reunion in (" + e + ")");
                }
            }
        });
        return replaced;
    }

    private void answer(int rank, int operation, byte[] answer) {
        Channel member = roster.member(rank);
        try {
            member.send(Channel.DATA, operation, answer, Deadline.after(timeout));
        } catch (IOException e) {
            // its listener hears the connection end, and the next operation leaves it out
            LOG.log(System.Logger.Level.DEBUG, () -> member.peer() + " did not take its answer: " + e);
        }
    }

    // ---- the job's end -----------------------------------------------------------------------------------------

    /** Ends the job for {@code reason} and returns what stops the operation under way. */
    private IllegalStateException ends(String reason) {
        endJob(reason);
        return new IllegalStateException(reason);
    }

    /**
     * Ends the job once, for the first reason: every member is told why (best effort, briefly), so that those
     * waiting inside an operation fail at once.
     */
    @Override
    public void endJob(String reason) {
        synchronized (telling) {
            synchronized (lock) {
                if (fatal != null) {
                    return;
                }
                fatal = reason;
                lock.notifyAll();
            }
            observer().ended(reason, System.nanoTime());
            LOG.log(System.Logger.Level.DEBUG, () -> "the job at " + endpoint + " ended: " + reason);
            Deadline brief = Deadline.after(timeouts.notice());
            for (int rank = 0; rank < capacity(); rank++) { // the processes waiting to join hear it too
                Channel member;
                synchronized (lock) {
                    member = roster.member(rank);
                }
                if (member != null) {
                    // the host's own rank hears the reason alone: "rank 0 ended the job" would name itself
                    roster.tellEnded(member, reason, sequence, brief, hostedByRankZero && rank == 0);
                }
            }
        }
    }

    private void waitForNews(Deadline deadline) {
        try {
            lock.wait(deadline == null ? 0 : Math.max(1, deadline.remainingMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fatal = fatal != null ? fatal : "the rendezvous server at " + endpoint + " was interrupted";
        }
    }

    /**
     * Stops serving: the members' connections end. Where rank 0 hosts it, rank 0 closes a job that ran to its end:
     * each member of a watched job hears so (or a death it has not heard of yet), so that its watcher takes it for no
     * failure; elsewhere a job still running fails, naming this server. The listening socket closes now, unless the
     * job failed while ranks were missing: then it stays until each of them has been told why, or for one timeout
     * (at least until the deadline for joining), and holds this JVM's exit until each has been told or the deadline
     * for joining has passed.
     */
    @Override
    public void close() {
        String untold;
        boolean tellClosed;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            lock.notifyAll();
            untold = fatal != null && roster.lateRanksUntold() ? roster.missing() : null;
            tellClosed = hostedByRankZero && watched && fatal == null;
        }
        if (untold != null) {
            answerLateArrivals(untold);
        } else {
            TcpAdmission.closeQuietly(socket);
        }
        synchronized (lock) {
            for (int r = 0; r < beats.length; r++) {
                stopBeats(r);
            }
        }
        synchronized (telling) {
            if (tellClosed) {
                tellClosed();
            }
            synchronized (lock) {
                roster.members().forEach(Channel::close); // after the reason of a failure has gone out to them
            }
        }
        threads.shutdownNow();
        page.ifPresent(JobPage::close);
    }

    /** Keeps answering the ranks that never joined with why the job ended, for a while (see {@link #close}). */
    private void answerLateArrivals(String untold) {
        Deadline answering = Deadline.after(timeout);
        Deadline until = answering.remainingMillis() >= joinDeadline.remainingMillis() ? answering : joinDeadline;
        LOG.log(
                System.Logger.Level.DEBUG,
                () -> "at " + endpoint + ", " + untold + " are answered with why the job ended until they arrive or "
                        + until.remainingMillis() + " ms have passed");
        if (!joinDeadline.expired()) {
            admission.holdExitUntilClosed(joinDeadline);
        }
        Watchdog.closeAt(socket, until);
    }

    /** Rank 0 closed a watched job: each other member hears so, or of the first death it has not heard of. */
    private void tellClosed() {
        Deadline brief = Deadline.after(timeouts.notice());
        for (int rank = 1; rank < currentSize(); rank++) {
            Channel member;
            String unheard;
            synchronized (lock) {
                boolean connected = !members.hasLeft(rank) && !members.isGone(rank);
                member = connected ? roster.member(rank) : null;
                unheard = connected ? news.unheard(rank) : null;
            }
            if (member == null) {
                continue;
            }
            if (unheard != null) {
                Roster.tellGone(member, unheard, sequence, brief);
            } else {
                Roster.tellClosed(member, sequence, brief);
            }
        }
    }
}
