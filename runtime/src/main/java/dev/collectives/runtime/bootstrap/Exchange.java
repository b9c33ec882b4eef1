package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What every {@link Rendezvous} shares: argument checks, operation numbering, one deadline per operation, the job's
 * phase as this rank sees it ({@link JobState}), and the rule that a failed rendezvous stays failed (its peers have
 * been told, or have gone).
 */
public abstract class Exchange implements Rendezvous {
    private final int rank;
    /** The job's size; a growth raises it. */
    private volatile int size;

    private final String where;
    private final Duration timeout;
    private volatile int operations;
    private volatile String operation = "joining";
    private BootstrapException failure;
    /** The job's phase as this rank sees it: joining until {@link #joined}. */
    private final JobState state;

    public Exchange(int rank, int size, String where, Duration timeout) {
        this.rank = rank;
        this.size = size;
        this.where = where;
        this.timeout = timeout;
        this.state = new JobState(rank);
    }

    /**
     * This rank is in: a rank of the job runs from now on; a replacement or a process that joins waits for the
     * members to take it in ({@link #replacement}, {@link #joining}).
     */
    public final void joined() {
        state.on(replacement() || joining() ? JobState.Event.ADMITTED : JobState.Event.JOINED, null);
    }

    /** The job's phase as this rank sees it. */
    public final JobState state() {
        return state;
    }

    @Override
    public final int rank() {
        return rank;
    }

    @Override
    public final int size() {
        return size;
    }

    @Override
    public final String where() {
        return where;
    }

    public final Duration timeout() {
        return timeout;
    }

    /** The operation under way, for messages: "broadcast #1", "allgather #2", "joining". */
    public final String operation() {
        return operation;
    }

    /** The number of the operation under way; both ends of every message check it. */
    public final int sequence() {
        return operations;
    }

    @Override
    public final synchronized byte[] broadcast(byte[] value) {
        start("broadcast");
        if (rank == 0) {
            checkValue(value);
        }
        return run(() -> doBroadcast(rank == 0 ? value.clone() : null, Deadline.after(timeout)));
    }

    @Override
    public final synchronized byte[][] allGather(byte[] value) {
        start("allgather");
        checkGather(value);
        return run(() -> doAllGather(value.clone(), Deadline.after(timeout)));
    }

    private void checkGather(byte[] value) {
        checkValue(value);
        if ((long) value.length * size > MAX_GATHER_BYTES) {
            throw BootstrapException.settings(
                    rank,
                    operation + " of " + value.length + " bytes from each of " + size + " ranks exceeds the limit of "
                            + MAX_GATHER_BYTES + " bytes");
        }
    }

    @Override
    public final synchronized Survivors allGatherOfSurvivors(byte[] value) {
        start("allgather");
        checkGather(value);
        return run(() -> doAllGatherOfSurvivors(value.clone(), Deadline.after(timeout)));
    }

    @Override
    public final synchronized void close() {
        if (!closed()) {
            state.on(JobState.Event.CLOSE, null);
            doClose();
        }
    }

    private boolean closed() {
        return state.phase() == JobState.Phase.CLOSED;
    }

    @Override
    public final synchronized boolean watch(Consumer<Cause> onFailure) {
        requireUsable();
        if (!watches()) {
            return false;
        }
        state.on(JobState.Event.WATCH, null); // before the watch starts: it may hear news at once
        doWatch(onFailure);
        return true;
    }

    @Override
    public final synchronized Optional<String> resumeAmongSurvivors() {
        Optional<String> unusable = unusable();
        if (unusable.isPresent()) {
            return unusable;
        }
        if (!watching()) {
            return Optional.empty();
        }
        Optional<String> refused = Optional.ofNullable(doResume());
        if (refused.isEmpty()) {
            state.on(JobState.Event.RESUME, null);
        }
        return refused;
    }

    /** Why this rendezvous can do nothing more (it failed, or is closed), or empty. */
    private Optional<String> unusable() {
        if (failure != null) {
            return Optional.of("it failed earlier: " + failure.getMessage());
        }
        return closed() ? Optional.of("it is closed") : Optional.empty();
    }

    @Override
    public final synchronized Optional<String> unwatch() {
        Optional<String> unusable = unusable();
        if (unusable.isPresent()) {
            return unusable;
        }
        if (state.phase() != JobState.Phase.WATCHED) {
            return Optional.of(
                    state.news() != null
                            ? "the job is " + state.phase().words + ": " + state.news()
                            : "it does not watch the job");
        }
        String refused = doUnwatch();
        if (refused == null) {
            state.on(JobState.Event.UNWATCH, null);
        }
        return Optional.ofNullable(refused);
    }

    /** Stops watching a job whose ranks are alive: null once it serves operations, else why not. */
    protected String doUnwatch() {
        return "it cannot stop watching";
    }

    @Override
    public final synchronized int[] reunite(Duration timeout) {
        start("reunion");
        state.on(JobState.Event.REUNION, null);
        int[] replaced = run(() -> doReunite(Deadline.after(timeout)));
        state.on(JobState.Event.REUNITED, null);
        return replaced;
    }

    /** Meets the survivors and the replacements of the ranks that died (see {@link #reunite}). */
    protected int[] doReunite(Deadline deadline) {
        return Rendezvous.super.reunite(timeout);
    }

    @Override
    public final synchronized int grow(int added, Duration timeout) {
        if (added < 1 && !joining()) {
            throw BootstrapException.settings(rank, "a growth takes in 1 process or more, not " + added);
        }
        start("growth");
        state.on(JobState.Event.GROW, null);
        Growth growth = run(() -> doGrow(added, Deadline.after(timeout)));
        state.on(JobState.Event.GROWN, growth.failure());
        if (growth.failure() != null) {
            throw BootstrapException.growthFailed(
                    rank, growth.failure() + "; the job goes on with its " + size + " ranks");
        }
        size = growth.size();
        return size;
    }

    /** What a growth came to: the job's size after it, and why it failed (then the size is the one before), or null. */
    public record Growth(int size, String failure) {}

    /** Takes part in a growth of the job (see {@link #grow}). */
    protected Growth doGrow(int added, Deadline deadline) {
        return new Growth(Rendezvous.super.grow(added, deadline.total()), null);
    }

    /**
     * A replacement's or a joiner's first operation is the one the members are at ({@code name}: "reunion"): it
     * numbers its operations from there.
     */
    public final void continueAt(int sequence, String name) {
        operations = sequence;
        operation = name + " #" + sequence;
    }

    @Override
    public final synchronized void stalled(String where) {
        if (watching() && failure == null) {
            doStalled(where);
        }
    }

    @Override
    public final synchronized void abort(String reason) {
        if (failure != null || closed()) {
            return;
        }
        doAbort(reason);
        fail(BootstrapException.failed(rank, "this rank ended the job: " + reason, null));
    }

    /** Tells the other ranks (or the server, which tells them) that this rank ends the job, and why. */
    protected abstract void doAbort(String reason);

    /** Rank 0 contributes {@code value}, the others none; every rank returns rank 0's. */
    protected abstract byte[] doBroadcast(byte[] value, Deadline deadline);

    protected abstract byte[][] doAllGather(byte[] value, Deadline deadline);

    /** Where a death cannot be told from a late rank (files), it fails the operation as {@link #doAllGather}. */
    protected Survivors doAllGatherOfSurvivors(byte[] value, Deadline deadline) {
        return new Survivors(doAllGather(value, deadline), new String[size]);
    }

    /** Whether this rendezvous can watch its job (the files' cannot). */
    protected boolean watches() {
        return false;
    }

    /** Starts watching the job for {@code onFailure}; called only where it {@link #watches}. */
    protected void doWatch(Consumer<Cause> onFailure) {}

    /**
     * A watched job resumes operations among the survivors of a rank's death: null once it can, else why not (the
     * job ended otherwise, or no death was reported). Only a rendezvous that watches is asked.
     */
    protected String doResume() {
        return "it cannot tell a rank's death";
    }

    /** Tells the server (or the other ranks) that this rank timed out waiting at {@code where}. */
    protected void doStalled(String where) {}

    /**
     * Whether the job is watched: its operations are over, and its news comes to the watcher (a death, or the job's
     * end or this rank's exclusion, which leaves this rank watching, not failed, until it fails or closes).
     */
    private boolean watching() {
        JobState.Phase phase = state.phase();
        return phase == JobState.Phase.WATCHED
                || phase == JobState.Phase.RANK_DIED
                || ((phase == JobState.Phase.ENDED || phase == JobState.Phase.EXCLUDED) && failure == null);
    }

    /** Releases sockets or files; called once. */
    protected abstract void doClose();

    public final boolean failed() {
        return failure != null;
    }

    /** Remembers {@code failure} (later operations rethrow it) and releases everything. */
    protected final BootstrapException fail(BootstrapException failure) {
        this.failure = failure;
        state.on(JobState.Event.END, failure.getMessage());
        close();
        return failure;
    }

    private void start(String name) {
        requireUsable();
        operations++;
        operation = name + " #" + operations;
    }

    private void requireUsable() {
        if (failure != null) {
            throw BootstrapException.failed(
                    rank, "the rendezvous at " + where + " failed earlier: " + failure.getMessage(), failure);
        }
        if (closed()) {
            throw BootstrapException.settings(rank, "the rendezvous at " + where + " is closed");
        }
        if (watching()) {
            throw BootstrapException.settings(
                    rank, "the rendezvous at " + where + " watches the job; it serves no" + " more operations");
        }
    }

    private void checkValue(byte[] value) {
        if (value == null || value.length > MAX_VALUE_BYTES) {
            throw BootstrapException.settings(
                    rank,
                    operation + " needs a value of at most " + MAX_VALUE_BYTES + " bytes, not "
                            + (value == null ? "null" : value.length + " bytes"));
        }
    }

    private <T> T run(Supplier<T> body) {
        try {
            return body.get();
        } catch (BootstrapException e) {
            throw failure == e ? e : fail(e);
        }
    }
}
