package dev.collectives.runtime.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Rank 0 of a TCP rendezvous: serves at the endpoint, where its {@link TcpAdmission} admits each other rank once
 * after it proves it holds the job token, keeps the membership, and relays every operation (a star: the values of
 * a job's bootstrap are small).
 *
 * <p>Every admitted rank has a thread that reads its messages as they come, so a rank that disconnects (without
 * saying it leaves), is killed or asks to end the job ends it on every rank at once, also while the others wait
 * inside an operation or for ranks still joining. Rank 0 keeps serving until closed, so that a late duplicate of a
 * rank is turned away and fails the job. When the job fails before every rank has joined, it keeps answering the
 * ranks still missing with the reason until each has been told or for one bootstrap timeout, also while its process
 * exits (until its deadline for joining), so that they fail at once naming the cause instead of at their own
 * deadline.
 *
 * <p>A watched job ({@link #watch}) keeps the members' connections as the job's lifeline: a member gone, or one that
 * ends the job, reaches the watcher of every rank; ranks that time out waiting in the library say so ({@link
 * #stalled}), and a moment after the first, rank 0 ends the job naming the ranks that did not: they never arrived.
 */
final class TcpRoot extends Exchange {
    /** How long one connection's handshake may take. */
    private static final Duration HANDSHAKE_LIMIT = Duration.ofSeconds(5);
    /**
     * How long after the first rank of a watched job stalls the others may take to say they stall too: those that
     * have not by then are named as the ranks that never arrived.
     */
    static final Duration STALL_GRACE = Duration.ofSeconds(2);
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private final ServerSocket server;
    private final TcpAdmission admission;
    /** Reads each admitted rank's messages as they come; a thread ends with its member's connection. */
    private final ExecutorService listeners =
            Executors.newCachedThreadPool(TcpAdmission.smallDaemonThreads("collectives-bootstrap-member"));
    private final Object lock = new Object();
    /** Held while the members are told why the job ends, so that nothing closes their connections meanwhile. */
    private final Object ending = new Object();
    /** Where each rank's admitted connection came from, from the moment its claim was checked. */
    private final String[] claimedFrom;
    private final Channel[] members;
    /** Each member's message not yet taken by the operation under way (a member sends one per operation). */
    private final Channel.Frame[] inbox;
    /** Which members closed their rendezvous (after their last operation) and said so. */
    private final boolean[] left;
    /** Why each member whose process died once the survivors go on is gone; null for the others. */
    private final String[] gone;
    /** Whether a member's death leaves the others going on ({@link #allGatherOfSurvivors} was called). */
    private boolean survivorsGoOn;
    /** Which ranks that never joined have been turned away with the reason the job ended. */
    private final boolean[] toldLate;
    /** The deadline for joining: how long rank 0 tells late arrivals why a job that failed early ended. */
    private final Deadline joinDeadline;
    private int joined;
    private boolean inOperation;
    /** The member whose message the operation under way waits for; 0 while it waits for none. */
    private int awaited;
    private boolean closing;
    private String fatal;
    /** Hears the job's failure, in a watched job; null before. */
    private Consumer<String> watcher;
    /** Where each rank of a watched job said it stalled; null for the others. */
    private final String[] stalls;
    /** Whether the verdict on stalled ranks is due (after the first stall). */
    private boolean verdictDue;

    private TcpRoot(RendezvousEndpoint endpoint, int size, JobToken token, Deadline joinDeadline, Duration timeout,
                    ServerSocket server, Duration handshakeLimit) {
        super(0, size, endpoint.toString(), timeout);
        this.joinDeadline = joinDeadline;
        this.server = server;
        this.admission = new TcpAdmission(server, token, this,
                handshakeLimit.compareTo(timeout) < 0 ? handshakeLimit : timeout);
        this.claimedFrom = new String[size];
        this.members = new Channel[size];
        this.inbox = new Channel.Frame[size];
        this.left = new boolean[size];
        this.gone = new String[size];
        this.toldLate = new boolean[size];
        this.stalls = new String[size];
    }

    /** Serves at {@code endpoint} until every rank has joined, or fails naming the ranks missing. */
    static TcpRoot serve(RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout) {
        return serve(endpoint, size, token, timeout, HANDSHAKE_LIMIT);
    }

    /** As {@link #serve(RendezvousEndpoint, int, JobToken, Duration)}; tests choose how long a handshake may take. */
    static TcpRoot serve(RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout,
                         Duration handshakeLimit) {
        Deadline deadline = Deadline.after(timeout);
        TcpRoot root = new TcpRoot(endpoint, size, token, deadline, timeout, listen(endpoint), handshakeLimit);
        root.admission.open();
        root.awaitMembers();
        return root;
    }

    /**
     * Listens on the endpoint's port: on the loopback address if that is the endpoint, else on every interface
     * (a host name may resolve to another of this host's addresses here than on the other nodes), after checking
     * that the endpoint is an address of this host at all.
     */
    private static ServerSocket listen(RendezvousEndpoint endpoint) {
        InetAddress address;
        try {
            address = InetAddress.getByName(endpoint.host());
            if (!address.isLoopbackAddress() && !address.isAnyLocalAddress()
                    && NetworkInterface.getByInetAddress(address) == null) {
                throw BootstrapException.settings(0, "rank 0 must run on the rendezvous host, but " + endpoint
                        + " (" + address.getHostAddress() + ") is not an address of this host ("
                        + InetAddress.getLocalHost().getHostName() + ")");
            }
        } catch (UnknownHostException e) {
            throw BootstrapException.settings(0, "cannot resolve the rendezvous host of " + endpoint + ": "
                    + e.getMessage());
        } catch (SocketException e) {
            throw BootstrapException.failed(0, "cannot list this host's network interfaces: " + e.getMessage(), e);
        }
        InetSocketAddress bindTo = address.isLoopbackAddress()
                ? new InetSocketAddress(address, endpoint.port()) : new InetSocketAddress(endpoint.port());
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            try {
                server.bind(bindTo, 128);
            } catch (IOException e) {
                server.close();
                throw e;
            }
            return server;
        } catch (BindException e) {
            throw BootstrapException.failed(0, "rank 0 cannot listen at " + endpoint + ": " + e.getMessage()
                    + " (another job on this port, or a second process with rank 0?)", e);
        } catch (IOException e) {
            throw BootstrapException.failed(0, "rank 0 cannot listen at " + endpoint + ": " + e, e);
        }
    }

    private void awaitMembers() {
        String failure;
        synchronized (lock) {
            while (fatal == null && joined < size() - 1 && !joinDeadline.expired()) {
                waitForNews(joinDeadline);
            }
            if (fatal == null && joined == size() - 1) {
                return;
            }
            failure = fatal != null ? fatal : missing() + " did not join at " + where() + " " + joinDeadline.within()
                    + admission.turnedAway();
        }
        throw fail(failure, null);
    }

    /** Waits on {@code lock} (held) until notified or the deadline. */
    private void waitForNews(Deadline deadline) {
        try {
            lock.wait(Math.max(1, deadline.remainingMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fatal = fatal != null ? fatal : "rank 0 was interrupted during " + operation();
        }
    }

    /** "rank 3", "ranks 1, 2" */
    private String missing() {
        List<String> ranks = IntStream.range(1, size()).filter(r -> members[r] == null).mapToObj(Integer::toString)
                .collect(Collectors.toList());
        return (ranks.size() == 1 ? "rank " : "ranks ") + String.join(", ", ranks);
    }

    /** Whether some rank has neither joined nor been told why the job ended (with {@code lock} held). */
    private boolean lateRanksUntold() {
        return IntStream.range(1, size()).anyMatch(r -> members[r] == null && !toldLate[r]);
    }

    // ---- joining: called by the admission for each peer it admits -------------------------------------------

    /** Why a peer that holds the token cannot join any more, or null while the job is forming or formed. */
    String ended() {
        synchronized (lock) {
            return fatal != null ? "the job at " + where() + " ended: " + fatal
                    : closing ? "the job at " + where() + " formed and rank 0 closed the rendezvous" : null;
        }
    }

    /**
     * Claims rank {@code rank} for the authenticated peer at {@code from}; returns why it cannot be that rank of
     * this job, or null. Claims are checked and made at once, so that two concurrent handshakes of one rank are
     * caught as a duplicate.
     */
    String claim(int rank, int size, String from) {
        synchronized (lock) {
            if (size != size()) {
                return "rank " + rank + " at " + from + " says the world size is " + size + ", rank 0 at " + where()
                        + " says " + size();
            }
            if (rank == 0) {
                return "a second process with rank 0 at " + from + " tried to join rank 0 at " + where();
            }
            if (rank < 0 || rank >= size()) {
                return "a peer at " + from + " claims rank " + rank + ", outside 0.." + (size() - 1);
            }
            if (claimedFrom[rank] != null) {
                return "duplicate rank " + rank + ": it joined from " + claimedFrom[rank] + " and again from " + from;
            }
            claimedFrom[rank] = from;
            return null;
        }
    }

    /**
     * {@code rank} (as it claims) was turned away with why the job ended; once every rank missing has been, no one
     * is left to answer and a closed rendezvous stops listening.
     */
    void toldLate(int rank) {
        boolean done;
        synchronized (lock) {
            if (rank > 0 && rank < size()) {
                toldLate[rank] = true;
            }
            done = closing && !lateRanksUntold();
        }
        if (done) {
            TcpAdmission.closeQuietly(server);
        }
    }

    /** Gives up the claim of a peer that could not be told it was admitted: it may try again. */
    void unclaim(int rank) {
        synchronized (lock) {
            claimedFrom[rank] = null;
        }
    }

    /**
     * The admitted {@code member} becomes rank {@code rank}; its messages are read as they come from now on. If the job
     * ended while it was being admitted, it is told why instead (the ending's own message went out without it).
     */
    void join(int rank, Channel member) {
        String ended;
        boolean closed;
        synchronized (ending) {
            synchronized (lock) {
                members[rank] = member;
                joined++;
                lock.notifyAll();
                ended = fatal;
                closed = closing;
            }
            if (ended != null) {
                abort(member, ended, briefly());
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
                synchronized (lock) {
                    if (closing) {
                        return; // rank 0 closed the connection itself
                    }
                    if (survivorsGoOn && !(e instanceof ProtocolException)) {
                        gone[rank] = reason;
                        lock.notifyAll();
                        return;
                    }
                }
                endJob(reason);
                return;
            }
            if (frame.type() == Channel.ABORT) {
                endJob(member.peer() + " ended the job: " + frame.text());
                return;
            }
            if (frame.type() == Channel.LEAVE) {
                synchronized (lock) {
                    left[rank] = true;
                    lock.notifyAll();
                }
                return; // its connection ending now is no failure
            }
            if (frame.type() == Channel.STALL) {
                stalledAt(rank, frame.text());
                continue;
            }
            String problem = null;
            synchronized (lock) {
                if (inbox[rank] != null) {
                    problem = member.peer() + " sent a message for operation #" + frame.operation()
                            + " before its message for operation #" + inbox[rank].operation() + " was used";
                } else {
                    inbox[rank] = frame;
                    lock.notifyAll();
                }
            }
            if (problem != null) {
                endJob(problem);
                return;
            }
        }
    }

    /** What went wrong with {@code member}'s connection, and when. */
    private String describe(Channel member, IOException e) {
        String when;
        synchronized (lock) {
            when = joined < size() - 1 ? "while the ranks were joining" : watching() ? "while the job ran"
                    : inOperation ? "during " + operation() : "after " + operation();
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
        begin();
        try {
            for (int r = 1; r < size(); r++) {
                sendTo(r, value, deadline, false);
            }
            return value;
        } finally {
            end();
        }
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        begin();
        try {
            byte[][] values = new byte[size()][];
            values[0] = value;
            byte[] all = new byte[value.length * size()];
            System.arraycopy(value, 0, all, 0, value.length);
            for (int r = 1; r < size(); r++) {
                values[r] = contribution(r, take(r, deadline, false), value.length);
                System.arraycopy(values[r], 0, all, r * value.length, value.length);
            }
            for (int r = 1; r < size(); r++) {
                sendTo(r, all, deadline, false);
            }
            return values;
        } finally {
            end();
        }
    }

    /**
     * From now on a member whose process dies is left out, not the end of the job: its value is missing and the
     * survivors are told why. Each survivor gets the same answer.
     */
    @Override
    protected Survivors doAllGatherOfSurvivors(byte[] value, Deadline deadline) {
        synchronized (lock) {
            survivorsGoOn = true;
        }
        begin();
        try {
            Survivors survivors = new Survivors(new byte[size()][], new String[size()]);
            survivors.values()[0] = value;
            for (int r = 1; r < size(); r++) {
                Channel.Frame frame = take(r, deadline, true);
                if (frame == null) {
                    survivors.goneReasons()[r] = goneReason(r);
                } else {
                    survivors.values()[r] = contribution(r, frame, value.length);
                }
            }
            byte[] answer = Channel.survivors(survivors);
            for (int r = 1; r < size(); r++) {
                if (survivors.goneReasons()[r] == null) {
                    sendTo(r, answer, deadline, true);
                }
            }
            return survivors;
        } finally {
            end();
        }
    }

    private String goneReason(int rank) {
        synchronized (lock) {
            return gone[rank];
        }
    }

    /** Member {@code rank}'s value, checked: for this operation, and as long as rank 0's. */
    private byte[] contribution(int rank, Channel.Frame frame, int length) {
        if (frame.operation() != sequence()) {
            throw fail(members[rank].peer() + " sent a message for operation #" + frame.operation()
                    + " during operation #" + sequence() + " (the ranks called different operations)", null);
        }
        if (frame.bytes().length != length) {
            throw fail(members[rank].peer() + " contributed " + frame.bytes().length + " bytes to " + operation()
                    + ", rank 0 " + length + " bytes (the ranks called it with different sizes)", null);
        }
        return frame.bytes();
    }

    /** An operation starts: a job that failed meanwhile fails it at once. */
    private void begin() {
        String late;
        synchronized (lock) {
            late = fatal;
            inOperation = true;
        }
        if (late != null) {
            throw fail(late, null);
        }
    }

    private void end() {
        synchronized (lock) {
            inOperation = false;
        }
    }

    /**
     * Member {@code rank}'s message for this operation, once it comes; the job's failure if it ends first. A member
     * that is gone fails the operation, unless {@code survivable}: then it is null.
     */
    private Channel.Frame take(int rank, Deadline deadline, boolean survivable) {
        String failure;
        synchronized (lock) {
            awaited = rank;
            lock.notifyAll();
            while (inbox[rank] == null && fatal == null && !left[rank] && gone[rank] == null && !deadline.expired()) {
                waitForNews(deadline);
            }
            awaited = 0;
            Channel.Frame frame = inbox[rank];
            if (fatal == null && frame != null) {
                inbox[rank] = null;
                return frame;
            }
            if (fatal == null && gone[rank] != null && survivable) {
                return null;
            }
            failure = fatal != null ? fatal : gone[rank] != null ? gone[rank]
                    : left[rank] ? members[rank].peer() + " closed its rendezvous before " + operation()
                    : members[rank].peer() + " did not take part in " + operation() + " " + deadline.within();
        }
        throw fail(failure, null);
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
     * Sends this operation's answer to member {@code rank}. A member that is gone fails the operation, unless
     * {@code survivable}: then it is left out from the next operation on.
     */
    private void sendTo(int rank, byte[] bytes, Deadline deadline, boolean survivable) {
        try {
            members[rank].send(Channel.DATA, sequence(), bytes, deadline);
        } catch (IOException e) {
            if (survivable && !(e instanceof SocketTimeoutException)) {
                synchronized (lock) {
                    gone[rank] = gone[rank] != null ? gone[rank] : describe(members[rank], e);
                }
                return;
            }
            throw fail(e instanceof SocketTimeoutException
                    ? members[rank].peer() + " did not take part in " + operation() + " " + deadline.within()
                    : describe(members[rank], e), e);
        }
    }

    @Override
    protected void doAbort(String reason) {
        endJob("rank 0 failed: " + reason);
    }

    // ---- a watched job ----------------------------------------------------------------------------------------

    @Override
    protected boolean doWatch(Consumer<String> onFailure) {
        String failed;
        synchronized (lock) {
            watcher = onFailure;
            failed = fatal;
        }
        if (failed != null) {
            onFailure.accept(failed);
        }
        return true;
    }

    @Override
    protected void doStalled(String where) {
        stalledAt(0, where);
    }

    /**
     * Rank {@code rank} timed out waiting at {@code where}. The verdict comes once every rank still in the job has
     * said so, or {@link #STALL_GRACE} after the first did.
     */
    private void stalledAt(int rank, String where) {
        boolean everyRank;
        boolean first;
        synchronized (lock) {
            if (fatal != null || stalls[rank] != null) {
                return;
            }
            stalls[rank] = where;
            everyRank = IntStream.range(0, size()).allMatch(r -> stalls[r] != null || left[r]);
            first = !verdictDue;
            verdictDue = true;
        }
        if (everyRank) {
            endJob(stallVerdict());
        } else if (first) {
            CompletableFuture.delayedExecutor(STALL_GRACE.toMillis(), TimeUnit.MILLISECONDS)
                    .execute(() -> endJob(stallVerdict()));
        }
    }

    /** Which ranks never arrived where the others stalled, or that every rank stalled. */
    private String stallVerdict() {
        synchronized (lock) {
            List<Integer> waited = IntStream.range(0, size()).filter(r -> stalls[r] != null).boxed()
                    .collect(Collectors.toList());
            List<Integer> absent = IntStream.range(0, size()).filter(r -> stalls[r] == null && !left[r]).boxed()
                    .collect(Collectors.toList());
            Map<String, List<Integer>> ranksByWhere = new LinkedHashMap<>();
            waited.forEach(r -> ranksByWhere.computeIfAbsent(stalls[r], w -> new ArrayList<>()).add(r));
            String where = ranksByWhere.size() == 1 ? "each " + stalls[waited.get(0)]
                    : ranksByWhere.entrySet().stream().map(e -> (e.getValue().size() == 1 ? "rank "
                    + e.getValue().get(0) : "ranks " + e.getValue()) + ": " + e.getKey())
                    .collect(Collectors.joining("; "));
            if (absent.isEmpty()) {
                return "every rank timed out waiting in the library (" + where + "): the ranks called different "
                        + "collectives, in another order or with other sizes";
            }
            return "ranks " + absent + " did not arrive at the collective that ranks " + waited + " waited in ("
                    + where + "): they never called it, or are stuck before it";
        }
    }

    /**
     * Ends the job once, for the first reason: every member is told why (best effort, briefly), so that those
     * waiting inside an operation fail at once. Runs on whichever thread saw the failure first.
     */
    void endJob(String reason) {
        synchronized (ending) {
            synchronized (lock) {
                if (fatal != null) {
                    return;
                }
                fatal = reason;
                lock.notifyAll();
            }
            Deadline brief = briefly();
            members().forEach(member -> abort(member, reason, brief));
        }
        Consumer<String> watching;
        synchronized (lock) {
            watching = watcher;
        }
        if (watching != null) {
            watching.accept(reason);
        }
    }

    /** Tells {@code member} why the job ended (best effort, by {@code deadline}). */
    private void abort(Channel member, String reason, Deadline deadline) {
        try {
            member.send(Channel.ABORT, sequence(), Channel.truncate("rank 0 ended the job: " + reason), deadline);
        } catch (IOException ignored) {
            // that member is gone or stuck; it fails on its own deadline
        }
    }

    /** How long telling the members why the job ended may take, all of them together. */
    private Deadline briefly() {
        return Deadline.after(Duration.ofMillis(Math.min(1000, timeout().toMillis())));
    }

    private List<Channel> members() {
        synchronized (lock) {
            return Arrays.stream(members).filter(Objects::nonNull).collect(Collectors.toList());
        }
    }

    /** Ends the job (if nothing ended it first) and fails this rank with the job's first failure. */
    private BootstrapException fail(String reason, Throwable cause) {
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
            untold = fatal != null && lateRanksUntold() ? missing() : null;
        }
        if (untold != null) {
            Deadline answering = Deadline.after(timeout());
            Deadline until = answering.remainingMillis() >= joinDeadline.remainingMillis() ? answering : joinDeadline;
            LOG.log(System.Logger.Level.DEBUG, () -> "rank 0 at " + where() + " answers " + untold + " with why the"
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
                Deadline brief = briefly();
                members().forEach(member -> leave(member, brief)); // so that their watchers take it for no failure
            }
            members().forEach(Channel::close); // after the reason of a failure has gone out to them
        }
    }

    private String fatalReason() {
        synchronized (lock) {
            return fatal;
        }
    }

    /** Tells a member of a watched job that rank 0 closed it (best effort, by {@code deadline}). */
    private void leave(Channel member, Deadline deadline) {
        try {
            member.send(Channel.LEAVE, sequence(), new byte[0], deadline);
        } catch (IOException ignored) {
            // that member is gone already; nothing is left to tell it
        }
    }
}
