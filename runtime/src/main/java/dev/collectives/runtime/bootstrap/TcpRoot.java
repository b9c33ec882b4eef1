package dev.collectives.runtime.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Rank 0 of a TCP rendezvous: serves at the endpoint, where its {@link TcpAdmission} admits each other rank once
 * after it proves it holds the job token, keeps the membership ({@link Roster}), and relays every operation
 * ({@link Relay}; a star: the values of a job's bootstrap are small). It ends the job, once, for the first failure.
 *
 * <p>Every admitted rank has a thread that reads its messages as they come, so a rank that disconnects (without
 * saying it leaves), is killed or asks to end the job ends it on every rank at once, also while the others wait
 * inside an operation or for ranks still joining. Rank 0 keeps serving until closed, so that a late duplicate of a
 * rank is turned away and fails the job. When the job fails before every rank has joined, it keeps answering the
 * ranks still missing with the reason until each has been told or for one bootstrap timeout, also while its process
 * exits (until its deadline for joining), so that they fail at once naming the cause instead of at their own
 * deadline.
 *
 * <p>A watched job ({@link #watch}) keeps the members' connections as the job's lifeline: a member that ends the job,
 * or one whose process dies, reaches the watcher of every rank (a death does not end the job: the survivors may meet
 * again, {@link #resumeAmongSurvivors}); ranks that time out waiting in the library say so ({@link
 * #stalled}), and a moment after the first, rank 0 ends the job naming the ranks that did not: they never arrived
 * ({@link StallVerdict}).
 */
final class TcpRoot extends Exchange implements Door {
    /** How long one connection's handshake may take. */
    private static final Duration HANDSHAKE_LIMIT = Duration.ofSeconds(5);

    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private final ServerSocket server;
    private final TcpAdmission admission;
    /** Reads each admitted rank's messages as they come; a thread ends with its member's connection. */
    private final ExecutorService listeners =
            Executors.newCachedThreadPool(TcpAdmission.smallDaemonThreads("collectives-bootstrap-member"));

    private final Object lock = new Object();
    /** Held while the members are told why the job ends, so that nothing closes their connections meanwhile. */
    private final Object ending = new Object();

    private final Roster roster;
    private final Relay relay;
    /** The deadline for joining: how long rank 0 tells late arrivals why a job that failed early ended. */
    private final Deadline joinDeadline;

    private boolean closing;
    private String fatal;
    /** Hears the job's failure, in a watched job; null before. */
    private Consumer<String> watcher;
    /** Where the ranks of a watched job stalled. */
    private final StallVerdict stalls;

    private TcpRoot(
            RendezvousEndpoint endpoint,
            int size,
            JobToken token,
            Deadline joinDeadline,
            Duration timeout,
            ServerSocket server,
            Duration handshakeLimit) {
        super(0, size, endpoint.toString(), timeout);
        this.joinDeadline = joinDeadline;
        this.server = server;
        this.admission =
                new TcpAdmission(server, token, this, handshakeLimit.compareTo(timeout) < 0 ? handshakeLimit : timeout);
        this.roster = new Roster(size, 1, "rank 0 at " + endpoint);
        this.relay = new Relay(this, lock, roster);
        this.stalls = new StallVerdict(size, lock, relay::hasLeft, () -> fatal != null, this::endJob);
    }

    /** Serves at {@code endpoint} until every rank has joined, or fails naming the ranks missing. */
    static TcpRoot serve(RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout) {
        return serve(endpoint, size, token, timeout, HANDSHAKE_LIMIT);
    }

    /** As {@link #serve(RendezvousEndpoint, int, JobToken, Duration)}; tests choose how long a handshake may take. */
    static TcpRoot serve(
            RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout, Duration handshakeLimit) {
        Deadline deadline = Deadline.after(timeout);
        TcpRoot root = new TcpRoot(
                endpoint, size, token, deadline, timeout, TcpAdmission.listen(endpoint, "rank 0"), handshakeLimit);
        root.admission.open();
        root.awaitMembers();
        return root;
    }

    private void awaitMembers() {
        String failure;
        synchronized (lock) {
            while (fatal == null && !roster.complete() && !joinDeadline.expired()) {
                waitForNews(joinDeadline);
            }
            if (fatal == null && roster.complete()) {
                return;
            }
            failure = fatal != null
                    ? fatal
                    : roster.missing() + " did not join at " + where() + " " + joinDeadline.within()
                            + admission.turnedAway();
        }
        throw fail(failure, null);
    }

    /** Waits on {@code lock} (held) until notified or the deadline. */
    void waitForNews(Deadline deadline) {
        try {
            lock.wait(Math.max(1, deadline.remainingMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fatal = fatal != null ? fatal : "rank 0 was interrupted during " + operation();
        }
    }

    // ---- joining: called by the admission for each peer it admits -------------------------------------------

    @Override
    public boolean standalone() {
        return false;
    }

    @Override
    public String ended() {
        synchronized (lock) {
            return fatal != null
                    ? "the job at " + where() + " ended: " + fatal
                    : closing ? "the job at " + where() + " formed and rank 0 closed the rendezvous" : null;
        }
    }

    /** Checked and made at once, so that two concurrent handshakes of one rank are caught as a duplicate. */
    @Override
    public String claim(int rank, int size, String from, boolean replacement) {
        synchronized (lock) {
            return replacement
                    ? roster.claimReplacement(rank, size, from, relay.isGone(rank), relay.isReplaced(rank))
                    : roster.claim(rank, size, from);
        }
    }

    /**
     * {@code rank} (as it claims) was turned away with why the job ended; once every rank missing has been, no one
     * is left to answer and a closed rendezvous stops listening.
     */
    @Override
    public void toldLate(int rank) {
        boolean done;
        synchronized (lock) {
            roster.toldLate(rank);
            done = closing && !roster.lateRanksUntold();
        }
        if (done) {
            TcpAdmission.closeQuietly(server);
        }
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
    public void join(int rank, Channel member, boolean replacement) {
        String ended;
        boolean closed;
        synchronized (ending) {
            synchronized (lock) {
                if (replacement) {
                    relay.replaced(rank, member);
                } else {
                    roster.join(rank, member);
                }
                lock.notifyAll();
                ended = fatal;
                closed = closing;
            }
            if (ended != null) {
                roster.tellEnded(member, ended, sequence(), Deadline.briefly(timeout()));
            }
        }
        if (closed) {
            member.close();
        }
        if (ended != null || closed) {
            return;
        }
        listeners.execute(() -> listen(rank, member));
    }

    // ---- each member's messages: read by its own listener as they come -------------------------------------

    private void listen(int rank, Channel member) {
        while (true) {
            Channel.Frame frame;
            try {
                frame = member.receiveAny();
            } catch (IOException e) {
                String reason = describe(member, e);
                List<Integer> told;
                synchronized (lock) {
                    if (closing) {
                        return; // rank 0 closed the connection itself
                    }
                    told = e instanceof ProtocolException ? null : died(rank, reason);
                }
                if (told == null) {
                    endJob(reason);
                } else {
                    tellDeath(reason, told);
                }
                return;
            }
            if (frame.type() == Channel.ABORT) {
                endJob(member.peer() + " ended the job: " + frame.text());
                return;
            }
            if (frame.type() == Channel.LEAVE) {
                synchronized (lock) {
                    relay.leave(rank);
                }
                return; // its connection ending now is no failure
            }
            if (frame.type() == Channel.STALL) {
                stalls.stalled(rank, frame.text());
                continue;
            }
            if (frame.type() == Channel.WATCH) {
                String unheard;
                synchronized (lock) {
                    unheard = relay.watch(rank);
                }
                if (unheard != null) {
                    tellDeath(unheard, List.of(rank));
                }
                continue;
            }
            String problem;
            synchronized (lock) {
                problem = relay.deliver(rank, frame);
            }
            if (problem != null) {
                endJob(problem);
                return;
            }
        }
    }

    /**
     * Member {@code rank}'s process died (with the lock held). In a watched job, or once the survivors met, they go on,
     * and the ranks it returns hear of it now ({@link DeathNews}); else the job ends (null).
     */
    private List<Integer> died(int rank, String reason) {
        return fatal == null && (watching() || relay.survivorsGoOn()) ? relay.died(rank, reason) : null;
    }

    /** What went wrong with {@code member}'s connection, and when. */
    String describe(Channel member, IOException e) {
        String when;
        synchronized (lock) {
            when = !roster.complete()
                    ? "while the ranks were joining"
                    : watching()
                            ? "while the job ran"
                            : relay.inOperation() ? "during " + operation() : "after " + operation();
        }
        if (e instanceof ProtocolException) {
            return member.peer() + " sent " + e.getMessage() + " " + when;
        }
        if (e instanceof EOFException || e instanceof SocketException) {
            return member.peer() + " is gone: its connection ended " + when + " (" + e + ")";
        }
        return member.peer() + " failed " + when + ": " + e;
    }

    // ---- operations -----------------------------------------------------------------------------------------

    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        return relay.broadcast(value, deadline);
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        return relay.allGather(value, deadline);
    }

    @Override
    protected Survivors doAllGatherOfSurvivors(byte[] value, Deadline deadline) {
        return relay.allGatherOfSurvivors(value, deadline);
    }

    @Override
    protected int[] doReunite(Deadline deadline) {
        return relay.reunite(deadline);
    }

    /** Returns once an operation waits for member {@code rank}'s message: tests order their events by it. */
    void awaitWaitingFor(int rank) throws InterruptedException {
        relay.awaitWaitingFor(rank);
    }

    /** Why the job ended, or null while it goes on; with {@code lock} held. */
    String failure() {
        return fatal;
    }

    @Override
    protected void doAbort(String reason) {
        endJob("rank 0 failed: " + reason);
    }

    // ---- a watched job ----------------------------------------------------------------------------------------

    @Override
    protected boolean doWatch(Consumer<String> onFailure) {
        String news;
        synchronized (lock) {
            watcher = onFailure;
            news = fatal != null ? fatal : relay.watch(0);
        }
        if (news != null) {
            onFailure.accept(news);
        }
        return true;
    }

    /**
     * A member of a watched job died: the ranks {@code told} hear it (rank 0 through its watcher), and the job goes
     * on for the survivors, who may meet again ({@link #doResume}).
     */
    private void tellDeath(String reason, List<Integer> told) {
        synchronized (ending) {
            Deadline brief = Deadline.briefly(timeout());
            for (int rank : told) {
                if (rank > 0) {
                    Roster.tellGone(roster.member(rank), reason, sequence(), brief);
                }
            }
        }
        if (told.contains(0)) {
            tellWatcher(reason);
        }
    }

    @Override
    protected String doResume() {
        synchronized (lock) {
            if (fatal != null) {
                return "the job ended: " + fatal;
            }
            return relay.anyGone() ? null : "no rank's death was reported";
        }
    }

    @Override
    protected void doStalled(String where) {
        stalls.stalled(0, where);
    }

    /**
     * Ends the job once, for the first reason: every member is told why (best effort, briefly), so that those
     * waiting inside an operation fail at once. Runs on whichever thread saw the failure first.
     */
    @Override
    public void endJob(String reason) {
        synchronized (ending) {
            synchronized (lock) {
                if (fatal != null) {
                    return;
                }
                fatal = reason;
                lock.notifyAll();
            }
            Deadline brief = Deadline.briefly(timeout());
            members().forEach(member -> roster.tellEnded(member, reason, sequence(), brief));
        }
        tellWatcher(reason);
    }

    /** The watcher of a watched job hears {@code reason}, on this thread. */
    private void tellWatcher(String reason) {
        Consumer<String> watching;
        synchronized (lock) {
            watching = watcher;
        }
        if (watching != null) {
            watching.accept(reason);
        }
    }

    private List<Channel> members() {
        synchronized (lock) {
            return roster.members();
        }
    }

    /** Ends the job (if nothing ended it first) and fails this rank with the job's first failure. */
    BootstrapException fail(String reason, Throwable cause) {
        endJob(reason);
        String first;
        synchronized (lock) {
            first = fatal;
        }
        return fail(BootstrapException.failed(0, first, first.equals(reason) ? cause : null));
    }

    /**
     * Closes every member's connection. The listening socket closes now, unless the job failed while ranks were
     * missing: then it stays until each of them has been told why, or for one bootstrap timeout (at least until the
     * deadline for joining), and holds this JVM's exit until each has been told or the deadline for joining has
     * passed.
     */
    @Override
    protected void doClose() {
        String untold;
        synchronized (lock) {
            closing = true;
            untold = fatal != null && roster.lateRanksUntold() ? roster.missing() : null;
        }
        if (untold != null) {
            Deadline answering = Deadline.after(timeout());
            Deadline until = answering.remainingMillis() >= joinDeadline.remainingMillis() ? answering : joinDeadline;
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> "rank 0 at " + where() + " answers " + untold + " with why the"
                            + " job ended until they arrive or " + until.remainingMillis() + " ms have passed");
            if (!joinDeadline.expired()) {
                admission.holdExitUntilClosed(joinDeadline);
            }
            Watchdog.closeAt(server, until);
        } else {
            TcpAdmission.closeQuietly(server);
        }
        synchronized (ending) {
            if (watching() && untold == null && fatalReason() == null) {
                Deadline brief = Deadline.briefly(timeout());
                // so that their watchers take it for no failure; one that has not heard of a death yet hears of it
                for (int rank = 1; rank < size(); rank++) {
                    Channel member;
                    String unheard;
                    synchronized (lock) {
                        member = roster.member(rank);
                        unheard = relay.lastNews(rank);
                    }
                    if (unheard != null) {
                        Roster.tellGone(member, unheard, sequence(), brief);
                    } else if (member != null) {
                        Roster.tellClosed(member, sequence(), brief);
                    }
                }
            }
            members().forEach(Channel::close); // after the reason of a failure has gone out to them
        }
    }

    private String fatalReason() {
        synchronized (lock) {
            return fatal;
        }
    }
}
