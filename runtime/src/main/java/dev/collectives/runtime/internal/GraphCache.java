package dev.collectives.runtime.internal;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphCacheStats;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The graphs of one GRAPH step with parameters: one captured graph per argument tuple, instantiated once and
 * launched on every later call with that tuple. At most {@code capacity} are held; a new tuple beyond that
 * destroys the least recently launched one, its instantiation before its graph (R5). Close destroys them all
 * before the pipeline frees the buffers they use. One rank's thread uses a cache; its methods are synchronized
 * only so that stats can be read from elsewhere.
 */
public final class GraphCache implements AutoCloseable {
    private final Communicator comm;
    private final Stream stream;
    private final String pipeline;
    private final String step;
    private final int capacity;
    private final StepBody body;
    /** In access order: the first is the least recently launched. */
    private final LinkedHashMap<Arguments, Captured> held;
    /** The key a call looks up with: its arguments, not copied, so a hit allocates nothing. */
    private final Arguments probe = new Arguments();
    private long captures;
    private long hits;
    private long evictions;
    private boolean closed;

    /**
     * A cache of at most {@code capacity} graphs of {@code pipeline.step()}, whose ops {@code body} issues on
     * {@code stream}.
     */
    public GraphCache(Communicator comm, Stream stream, String pipeline, String step, int capacity, StepBody body) {
        if (capacity < 1) {
            throw CollectivesException.usage(comm.rank(), pipeline + "." + step + "(): a graph cache holds at least"
                    + " 1 graph, not " + capacity);
        }
        this.comm = comm;
        this.stream = stream;
        this.pipeline = pipeline;
        this.step = step;
        this.capacity = capacity;
        this.body = body;
        this.held = new LinkedHashMap<>(capacity * 2, 0.75f, true);
    }

    /** Captures the graph of {@code args} now (at bind, for a step's {@code @Capture} values) unless it is held. */
    public synchronized void capture(long... args) {
        requireOpen();
        if (held.get(probe.of(args)) == null) {
            add(args);
        }
    }

    /**
     * Launches the graph of {@code args} on the stream: the held one (a hit), or one captured, instantiated and
     * held now (a miss), which may destroy the least recently launched one.
     */
    public synchronized void launch(long... args) {
        requireOpen();
        Captured graph = held.get(probe.of(args));
        if (graph != null) {
            hits++;
        } else {
            graph = add(args);
        }
        graph.exec.launch(stream);
    }

    private void requireOpen() {
        Lifecycle.requireOpenForReplay(comm, pipeline, closed, step);
    }

    /** Captures and instantiates the graph of {@code args} (R4), then makes room for it. */
    private Captured add(long[] args) {
        long[] copy = args.clone();
        Graph graph = Capture.capture(stream, () -> body.issue(copy));
        GraphExec exec;
        try {
            exec = graph.instantiate();
        } catch (RuntimeException | Error failure) {
            graph.close();
            throw failure;
        }
        captures++;
        Captured captured = new Captured(graph, exec);
        held.put(new Arguments().of(copy), captured);
        if (held.size() > capacity) {
            Iterator<Captured> eldest = held.values().iterator();
            Captured evicted = eldest.next();
            eldest.remove();
            evictions++;
            evicted.close();
        }
        return captured;
    }

    /** The counts so far: captures, hits, evictions, graphs held, capacity. */
    public synchronized GraphCacheStats stats() {
        return new GraphCacheStats(captures, hits, evictions, held.size(), capacity);
    }

    /** One line: the step, what is held, and the counts. */
    public synchronized String describe() {
        return "graph cache of " + step + "(): " + held.size() + " of " + capacity + " graphs held, " + captures
                + " captured, " + hits + " hits, " + evictions + " evicted" + (closed ? " (closed)" : "");
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
