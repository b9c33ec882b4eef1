package dev.collectives.runtime.internal;

import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphCacheStats;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;

/**
 * The graphs of one GRAPH step: one captured graph per argument tuple (a step without parameters has one, of no
 * arguments), instantiated once and launched on every later call with that tuple. Where the communicator connects its
 * peers lazily ({@link Communicator#peersConnectedAtInit}), a connection cannot be captured: a tuple's first call then
 * runs the step's ops eagerly, which connects what they need, and its second captures them, as CUDA-graph programs
 * warm up; no op runs that the step was not called for. At most {@code capacity} are held; a new tuple beyond that
 * destroys the least recently launched one, its instantiation before its graph (R5). Close destroys them all
 * before the pipeline frees the buffers they use. One rank's thread uses a cache; its methods are synchronized
 * only so that stats can be read from elsewhere.
 *
 * <p>A cache too small for the tuples its step cycles through captures on almost every call, which on a GPU costs
 * far more than the launch it replaces. It is found too small once it has re-captured (captured again after
 * evicting it) as many graphs as it holds; then, per {@link GraphCacheOverflow}, it logs one warning to
 * {@value #LOGGER} or fails every further re-capture, and {@link #describe()} says so.
 */
public final class GraphCache implements AutoCloseable {
    /** The {@code System.Logger} that a too small cache warns on. */
    public static final String LOGGER = "dev.collectives";
    /** Distinct tuples remembered to tell a re-capture from a first capture: a bound on the memory they take. */
    public static final int SEEN_LIMIT = 1024;

    private static final System.Logger LOG = System.getLogger(LOGGER);

    private final Communicator comm;
    private final Stream stream;
    private final String pipeline;
    private final String step;
    private final int capacity;
    private final GraphCacheOverflow overflow;
    private final StepBody body;
    /** In access order: the first is the least recently launched. */
    private final LinkedHashMap<Arguments, Captured> held;
    /** The key a call looks up with: its arguments, not copied, so a hit allocates nothing. */
    private final Arguments probe = new Arguments();
    /**
     * Every distinct tuple captured so far, exactly, up to {@link #SEEN_LIMIT} of them (the keys of {@link #held},
     * shared). Only misses add to it: a hit's tuple was captured before.
     */
    private final Set<Arguments> seen = new HashSet<>();
    /** The tuples whose first call ran eagerly, not captured yet, up to {@link #SEEN_LIMIT} of them. */
    private final Set<Arguments> warmedUp = new HashSet<>();

    private long captures;
    private long hits;
    private long evictions;
    /** Misses on a tuple in {@link #seen}: each a capture that a cache holding every tuple would have saved. */
    private long recaptures;
    /** Calls that ran eagerly, a tuple's first where the peers connect lazily. */
    private long eager;

    private boolean warned;
    private boolean closed;

    /**
     * A cache of at most {@code capacity} graphs of {@code pipeline.step()}, whose ops {@code body} issues on
     * {@code stream}; {@code overflow} says what it does once it proves too small.
     */
    public GraphCache(
            Communicator comm,
            Stream stream,
            String pipeline,
            String step,
            int capacity,
            GraphCacheOverflow overflow,
            StepBody body) {
        if (capacity < 1) {
            throw CollectivesException.usage(
                    comm.rank(),
                    pipeline + "." + step + "(): a graph cache holds at least" + " 1 graph, not " + capacity);
        }
        this.comm = comm;
        this.stream = stream;
        this.pipeline = pipeline;
        this.step = step;
        this.capacity = capacity;
        this.overflow = overflow;
        this.body = body;
        this.held = new LinkedHashMap<>(capacity * 2, 0.75f, true);
    }

    /**
     * Captures the graph of {@code args} now (at bind: a step without parameters, a step's {@code @Capture} values)
     * unless it is held, where the communicator's peers were connected at init; else its first call will.
     */
    public synchronized void capture(long... args) {
        requireOpen();
        if (comm.peersConnectedAtInit() && held.get(probe.of(args)) == null) {
            add(args);
        }
    }

    /**
     * Launches the graph of {@code args} on the stream: the held one (a hit), or one captured, instantiated and
     * held now (a miss), which may destroy the least recently launched one. A tuple's first call where the peers
     * connect lazily runs the ops eagerly instead.
     */
    public synchronized void launch(long... args) {
        requireOpen();
        Captured graph = held.get(probe.of(args));
        if (graph != null) {
            hits++;
        } else if (needsWarmUp(args)) {
            body.issue(args);
            eager++;
            if (warmedUp.size() < SEEN_LIMIT) {
                warmedUp.add(new Arguments().of(args.clone()));
            }
            return;
        } else {
            graph = add(args);
        }
        graph.exec.launch(stream);
    }

    /** Whether the ops of {@code args} never ran where the peers connect lazily: capturing them would fail. */
    private boolean needsWarmUp(long[] args) {
        return !comm.peersConnectedAtInit() && !warmedUp.contains(probe.of(args)) && !seen.contains(probe);
    }

    private void requireOpen() {
        Lifecycle.checkOpenForReplay(comm, pipeline, closed, step);
    }

    /** Captures and instantiates the graph of {@code args} (R4), then makes room for it. */
    private Captured add(long[] args) {
        if (seen.contains(probe.of(args))) {
            missedEvicted();
        }
        long[] copy = args.clone();
        Graph graph = Capture.capture(comm, stream, pipeline, step, () -> body.issue(copy));
        GraphExec exec;
        try {
            exec = graph.instantiate();
        } catch (RuntimeException | Error failure) {
            graph.close();
            throw failure;
        }
        captures++;
        Captured captured = new Captured(graph, exec);
        Arguments key = new Arguments().of(copy);
        warmedUp.remove(key);
        held.put(key, captured);
        if (seen.size() < SEEN_LIMIT) {
            seen.add(key);
        }
        if (held.size() > capacity) {
            Iterator<Captured> eldest = held.values().iterator();
            Captured evicted = eldest.next();
            eldest.remove();
            evictions++;
            evicted.close();
        }
        return captured;
    }

    /**
     * A miss on a tuple captured before: counts it, and once the cache proves too small warns, once, or fails.
     * Evictions alone are no sign of it: a run that moves on to new sizes, or calls with ever new tuples, evicts
     * graphs it will not launch again, and a larger cache would save nothing. Such a miss is exactly a capture that a
     * larger cache would have saved; once there are as many as the cache holds, the tuples in use have gone round it
     * at least once more than it can keep, which a passing burst does not do. The ranks call with the same tuples
     * (R14), so every rank decides alike, before capturing: under FAIL none is left in a collective the others skip.
     */
    private void missedEvicted() {
        if (++recaptures < capacity) {
            return;
        }
        if (overflow == GraphCacheOverflow.FAIL) {
            throw CollectivesException.usage(comm.rank(), tooSmall() + " (graphCacheOverflow = FAIL)");
        }
        if (!warned) {
            warned = true;
            LOG.log(Level.WARNING, "rank " + comm.rank() + ": " + tooSmall());
        }
    }

    /** Why the cache is too small, and what to set instead. */
    private String tooSmall() {
        boolean counted = seen.size() < SEEN_LIMIT;
        return pipeline + "." + step + "(...): its graph cache is too small: it holds " + count(capacity, "graph")
                + " but the step was called with " + (counted ? "" : "at least ") + seen.size() + " distinct argument"
                + " tuples, and " + count(recaptures, "call") + " missed a graph it had evicted (each such call"
                + " captures it again, which costs far more than a launch); set @CollectivePipeline(graphCache = "
                + seen.size() + ")"
                + (counted ? "" : " or more") + ", or call the step with fewer distinct arguments";
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** The counts so far: captures, hits, evictions, graphs held, capacity. */
    public synchronized GraphCacheStats stats() {
        return new GraphCacheStats(captures, hits, evictions, held.size(), capacity);
    }

    /** One line: the step, what is held, and the counts; and a second saying so once the cache proves too small. */
    public synchronized String describe() {
        return "graph cache of " + step + "(): " + held.size() + " of " + capacity + " graphs held, " + captures
                + " captured, " + hits + " hits, " + evictions + " evicted, " + recaptures + " missed after eviction"
                + (eager == 0 ? "" : ", " + count(eager, "first call") + " run eagerly")
                + (closed ? " (closed)" : "") + (recaptures < capacity ? "" : "\n" + tooSmall());
    }

    /** Destroys every held graph, least recently launched first, each instantiation before its graph. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<AutoCloseable> inOrder = new ArrayList<>(held.size() * 2);
        for (Captured captured : held.values()) {
            inOrder.add(captured.exec);
            inOrder.add(captured.graph);
        }
        held.clear();
        Lifecycle.closeInOrder(inOrder.toArray(new AutoCloseable[0]));
    }

    @Override
    public String toString() {
        return describe();
    }

    /** A held graph and its instantiation. */
    private static final class Captured {
        final Graph graph;
        final GraphExec exec;

        Captured(Graph graph, GraphExec exec) {
            this.graph = graph;
            this.exec = exec;
        }

        void close() {
            Lifecycle.closeInOrder(exec, graph);
        }
    }

    /** An argument tuple as a map key; the probe is re-pointed at each call's arguments. */
    private static final class Arguments {
        private long[] values;
        private int hash;

        Arguments of(long[] args) {
            values = args;
            hash = Arrays.hashCode(args);
            return this;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Arguments && Arrays.equals(values, ((Arguments) other).values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
