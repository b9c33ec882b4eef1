package dev.collectives.runtime.bootstrap;

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

/**
 * A TCP rendezvous served by a process of its own, as torchrun's agent hosts its store: every rank, rank 0 too,
 * joins it as a member (the {@link Bootstrap#option option} {@code rendezvousServer=standalone}:
 * {@code COLLECTIVES_RENDEZVOUS_SERVER=standalone} on every rank, beside {@code COLLECTIVES_RENDEZVOUS=tcp://host:port}
 * of this server), so that the survivors of any rank's death, rank 0's too, still have a place to meet, and a
 * replacement of any rank can join (the option {@code replacement}, {@code COLLECTIVES_REPLACEMENT=1}, marks a process
 * that takes a dead rank's place; see {@link Rendezvous#reunite}).
 *
 * <p>For each operation it takes every live rank's message and answers each rank with all of them; the ranks check
 * the answer themselves ({@link ServedOperations}), the same on every rank. It watches the job as rank 0 does where
 * rank 0 serves: a rank that ends the job ends it on every rank, a rank whose process dies is news to the ranks that
 * watch (they may meet again without it), ranks that stall come to a verdict naming those that never arrived, and a
 * process that proves the token replaces a dead rank at the survivors' next reunion. It serves until every rank has
 * left or died, or the job ended ({@link #awaitEnd}).
 */
public final class RendezvousServer implements Door, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");
    /** How long the ranks may take to join, and each operation, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_TIMEOUT = Settings.DEFAULT_TIMEOUT;
    /** How long a rank may be silent before it is declared dead, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Settings.DEFAULT_HEARTBEAT_TIMEOUT;

    private final RendezvousEndpoint endpoint;
    private final int size;
    private final Duration timeout;
    private final Duration heartbeatTimeout;
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
    /** The server's heartbeats to each member that joined; null where none beat. */
    private final Heartbeats.Beat[] beats;
    /** Why each rank was excluded from the job, or null: an excluded process that wakes asks. */
    private final String[] exclusions;
    /** The connections whose end has been dealt with (a death declared, or the member left), never to be again. */
    private final Set<Channel> ended = new HashSet<>();
    /** The heartbeats this server sent to its members, and received from them. */
    private final LongAdder beatsSent = new LongAdder();

    private final LongAdder beatsReceived = new LongAdder();

    private String fatal;
    private boolean closed;
    /** The last operation served. */
    private volatile int sequence;

    private RendezvousServer(
            RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout, Duration heartbeatTimeout) {
        this.endpoint = endpoint;
        this.size = size;
        this.timeout = timeout;
        this.heartbeatTimeout = heartbeatTimeout;
        this.liveness = new Liveness(size, heartbeatTimeout, System::nanoTime);
        this.beats = new Heartbeats.Beat[size];
        this.exclusions = new String[size];
        this.roster = new Roster(size, 0, "the rendezvous server at " + endpoint);
        this.members = new Members(size);
        this.stalls = new StallVerdict(size, lock, members::hasLeft, () -> fatal != null, this::endJob);
        this.news = new DeathNews(size);
        this.socket = TcpAdmission.listen(endpoint, "the rendezvous server");
        this.admission = new TcpAdmission(socket, token, this, timeout);
    }

    /**
     * Serves a job of {@code size} ranks at {@code endpoint}, admitting those that prove they hold {@code jobToken};
     * each operation, and the joining, within {@code timeout}.
     */
    public static RendezvousServer start(RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout) {
        return start(endpoint, size, jobToken, timeout, DEFAULT_HEARTBEAT_TIMEOUT);
    }

    /**
     * As {@link #start(RendezvousEndpoint, int, String, Duration)}; a rank that sends nothing, not even a heartbeat,
     * for {@code heartbeatTimeout} is declared dead and excluded from the job (the ranks beat at a sixth of it).
     */
    public static RendezvousServer start(
            RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout, Duration heartbeatTimeout) {
        if (endpoint.kind() != RendezvousEndpoint.Kind.TCP || size < 1) {
            throw BootstrapException.settings(
                    -1, "a rendezvous server serves a tcp:// endpoint for one rank or more, not " + endpoint);
        }
        if (heartbeatTimeout.isNegative() || heartbeatTimeout.isZero()) {
            throw BootstrapException.settings(-1, "the heartbeat timeout " + heartbeatTimeout + " is not positive");
        }
        RendezvousServer server =
                new RendezvousServer(endpoint, size, JobToken.of(jobToken, -1), timeout, heartbeatTimeout);
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
    public boolean standalone() {
        return true;
    }

    @Override
    public String ended() {
        synchronized (lock) {
            return fatal != null ? "the job at " + endpoint + " ended: " + fatal : null;
        }
    }

    @Override
    public void toldLate(int rank) {
        synchronized (lock) {
            roster.toldLate(rank);
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
        byte[] text = Channel.truncate(what);
        synchronized (telling) {
            Deadline brief = Deadline.briefly(timeout);
            for (Channel member : members()) {
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
            return rank >= 0 && rank < size ? exclusions[rank] : null;
        }
    }

    @Override
    public void unclaim(int rank) {
        synchronized (lock) {
            roster.unclaim(rank);
        }
    }

    @Override
    public void join(int rank, Channel member, boolean replacement) {
        synchronized (lock) {
            if (closed) { // it was told it was admitted as the server closed: its connection ending says the rest
                member.close();
                return;
            }
            if (replacement) {
                roster.replace(rank, member);
                members.replaced(rank);
                news.replaced(rank);
                LOG.log(System.Logger.Level.DEBUG, () -> "a replacement of rank " + rank + " joined at " + endpoint);
            } else {
                roster.join(rank, member);
            }
            liveness.heard(rank);
            stopBeats(rank); // a dead rank's, where a replacement takes its place
            beats[rank] = Heartbeats.start(member, -1, heartbeatTimeout, beatsSent);
            lock.notifyAll();
            threads.execute(() -> listen(rank, member)); // before close() can shut the threads down
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
                    int says = ByteBuffer.wrap(frame.bytes()).getInt();
                    if (says != rank) {
                        fence(rank, member, "it sent heartbeats for rank " + says);
                        return;
                    }
                }
                case Channel.DATA, Channel.REUNION -> deliver(rank, member, frame);
                case Channel.GONE, Channel.REJOIN, Channel.FENCED -> {
                    fence(rank, member, "it sent a message of type " + frame.type() + ", which only a server sends");
                    return;
                }
                case Channel.ABORT -> {
                    endJob(member.peer() + " ended the job: " + frame.text());
                    return;
                }
                case Channel.LEAVE -> {
                    synchronized (lock) {
                        members.leave(rank);
                        ended.add(member);
                        liveness.forget(rank);
                        stopBeats(rank);
                        lock.notifyAll();
                    }
                    return;
                }
                case Channel.STALL -> stalls.stalled(rank, frame.text());
                case Channel.WATCH -> watch(rank, member);
                default -> {
                    fence(rank, member, "it sent a message of unknown type " + frame.type());
                    return;
                }
            }
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
            unheard = news.watch(rank);
        }
        if (unheard != null) {
            synchronized (telling) {
                Roster.tellGone(member, unheard, sequence, Deadline.briefly(timeout));
            }
        }
    }

    /** Member {@code rank}'s connection ended without its leaving: its process died, unless the job had ended. */
    private void died(int rank, Channel member, IOException e) {
        declareDead(rank, member, when -> "its connection ended " + when + " (" + e + ")", null);
    }

    /**
     * Declares rank {@code rank}, on {@code member}, dead, and excludes it from the job: it was silent past the
     * heartbeat timeout, or sent what a member may not. It hears why (where it still reads) and its connection
     * closes; if it wakes, asking again tells it the same; only a replacement may take its place.
     */
    private void fence(int rank, Channel member, String why) {
        String exclusion = "rank " + rank + " was excluded from the job at " + endpoint + ": " + why
                + "; only a replacement may take its place";
        if (!declareDead(rank, member, when -> why + " " + when, exclusion)) {
            return;
        }
        try {
            member.send(Channel.FENCED, sequence, Channel.truncate(exclusion), Deadline.briefly(timeout));
        } catch (IOException ignored) {
            // it cannot hear it now: if it wakes, it asks
        }
        member.close();
    }

    /**
     * Declares the death of rank {@code rank} on {@code member}, {@code how} it died given when ("while the job ran"),
     * excluded for {@code exclusion} where not null: every survivor that watches hears of it at once, the others at
     * their next operation; before every rank joined, it ends the job. Returns false where the job had ended, the
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
            liveness.forget(rank);
            if (roster.member(rank) == member) {
                stopBeats(rank);
            }
            if (exclusion != null) {
                exclusions[rank] = exclusion;
            }
            formed = roster.complete();
            reason = member.peer() + " is gone: "
                    + how.apply(formed ? "while the job ran" : "while the ranks were joining");
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
            Deadline brief = Deadline.briefly(timeout);
            told.forEach(watcher -> Roster.tellGone(watcher, reason, sequence, brief));
        }
        return true;
    }

    /** Declares dead, and excludes, every member silent past the heartbeat timeout, until the job ends. */
    private void watchSilence() {
        long every = Heartbeats.interval(heartbeatTimeout).toNanos();
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
        Deadline joining = Deadline.after(timeout);
        String missing;
        synchronized (lock) {
            while (fatal == null && !closed && !roster.complete() && !joining.expired()) {
                waitForNews(joining);
            }
            missing = roster.complete() || closed ? null : roster.missing();
        }
        if (missing != null) {
            endJob(missing + " did not join at " + endpoint + " " + joining.within() + admission.turnedAway());
            return;
        }
        while (true) {
            Channel.Frame first;
            synchronized (lock) {
                while (fatal == null && !closed && (first = firstMessage()) == null) {
                    waitForNews(null);
                }
                if (fatal != null || closed) {
                    return;
                }
                first = firstMessage();
            }
            try {
                serve(first.operation(), first.type() == Channel.REUNION, Deadline.after(timeout));
            } catch (IllegalStateException ended) {
                return; // the job ended: every member was told why
            }
        }
    }

    private Channel.Frame firstMessage() {
        return roster.complete() ? members.firstWaiting() : null;
    }

    /**
     * Operation {@code operation}: for a {@code reunion}, first the replacement of every dead rank; then every live
     * rank's message, and each answered with all of them (the ranks replaced, for a reunion).
     */
    private void serve(int operation, boolean reunion, Deadline deadline) {
        BitSet replaced = reunion ? awaitReplacements(operation, deadline) : new BitSet();
        byte[][] values = new byte[size][];
        String[] missing = new String[size];
        for (int r = 0; r < size; r++) {
            Channel.Frame frame = take(r, operation, deadline);
            if (frame == null) {
                synchronized (lock) {
                    missing[r] = members.missing(r);
                }
            } else if (frame.operation() != operation || (frame.type() == Channel.REUNION) != reunion) {
                throw ends(roster.member(r).peer() + " sent a message for operation #" + frame.operation()
                        + (frame.type() == Channel.REUNION ? " (a reunion)" : "") + " during operation #" + operation
                        + " (the ranks called different operations)");
            } else {
                values[r] = frame.bytes();
            }
        }
        byte[] answer = reunion
                ? Arrays.copyOf(replaced.toByteArray(), (size + 7) / 8)
                : Channel.gathered(new Rendezvous.Survivors(values, missing));
        synchronized (lock) {
            sequence = operation;
        }
        for (int r = 0; r < size; r++) {
            if (values[r] != null) {
                answer(r, operation, answer);
            }
        }
    }

    /** Member {@code rank}'s message for the operation; null if it is gone or left; the job ends past the deadline. */
    private Channel.Frame take(int rank, int operation, Deadline deadline) {
        synchronized (lock) {
            while (fatal == null && members.awaited(rank) && !deadline.expired()) {
                waitForNews(deadline);
            }
            if (fatal != null) {
                throw new IllegalStateException(fatal);
            }
            if (!members.awaited(rank)) {
                news.operating(rank);
                return members.take(rank);
            }
        }
        throw ends(roster.member(rank).peer() + " did not take part in operation #" + operation + " at " + endpoint
                + " " + deadline.within());
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
                            : "no replacement joined at " + endpoint + " " + deadline.within() + " for " + missing;
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
            LOG.log(System.Logger.Level.DEBUG, () -> "the job at " + endpoint + " ended: " + reason);
            Deadline brief = Deadline.briefly(timeout);
            members().forEach(member -> roster.tellEnded(member, reason, sequence, brief));
        }
    }

    private List<Channel> members() {
        synchronized (lock) {
            return roster.members();
        }
    }

    private void waitForNews(Deadline deadline) {
        try {
            lock.wait(deadline == null ? 0 : deadline.timeoutMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fatal = fatal != null ? fatal : "the rendezvous server at " + endpoint + " was interrupted";
        }
    }

    /** Stops serving: the members' connections end (a job still running fails, naming this server). */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            lock.notifyAll();
        }
        TcpAdmission.closeQuietly(socket);
        synchronized (lock) {
            for (int r = 0; r < size; r++) {
                stopBeats(r);
            }
        }
        synchronized (telling) {
            members().forEach(Channel::close);
        }
        threads.shutdownNow();
    }
}
