package dev.collectives.runtime;

import dev.collectives.runtime.spi.FlightRecorder;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one communicator's flight recorder held when it was read ({@link Communicator#flightRecord()}): the last
 * operations this rank issued on it, oldest first, each numbered in issue order. Ranks that issue the same
 * operations number them alike, so entry {@code #n} of one rank is entry {@code #n} of the others; the
 * {@code trace} command of the runner compares the ranks' dumps by these numbers.
 *
 * @param rank          this rank in the communicator
 * @param size          the communicator's ranks
 * @param backend       the backend's name
 * @param job           the job's id, which every communicator of the job shares, through its recoveries too
 * @param lineage       how the communicator came to be from the job's first one, step by step ("formed", "shrunk #0
 *                      without rank 1", "reformed, rank 1 replaced", "grown to 4", "split #0 with color 1"): with
 *                      the job, what names it alike on its ranks and apart from every other communicator of the job
 * @param capacity      how many entries the recorder keeps (0: it is off)
 * @param recorded      how many operations it numbered in all, the oldest ones no longer kept
 * @param entries       the entries kept, oldest first
 */
public record FlightRecord(
        int rank,
        int size,
        String backend,
        String job,
        List<String> lineage,
        int capacity,
        long recorded,
        List<Entry> entries) {
    /** What a dump's {@code "format"} field holds. */
    public static final String FORMAT = "collectives-flight-record";
    /** The version of the dump format this runtime writes. */
    public static final int VERSION = 3;

    public FlightRecord {
        lineage = List.copyOf(lineage);
        entries = List.copyOf(entries);
    }

    /** The reason of a record written on request ({@link #writeAll}). */
    public static final String ASKED = "asked";

    /**
     * Every communicator open in this process writes its flight record into {@code directory} now, as it would at a
     * failure, with the reason {@value #ASKED}: a look at a job that runs, or hangs, without waiting for its timeout
     * or ending it. A communicator that wrote its record before writes it again, replacing that file, and still writes
     * it at a failure, abort or close where a dump directory is set. {@code trace} reads the files; a recorder that is
     * off writes none.
     *
     * @return the files written
     */
    public static List<Path> writeAll(Path directory) {
        return FlightRecorder.writeAll(ASKED, Optional.of(directory));
    }

    /** The communicator, as {@code trace} names it: "formed > shrunk #0 without rank 1". */
    public String communicator() {
        return String.join(" > ", lineage);
    }

    /** Where an operation stood when the record was read. */
    public enum State {
        /** Issued to its stream; no synchronize of that stream has returned since. */
        ENQUEUED,
        /** A synchronize of its stream returned after it was issued. */
        COMPLETED,
        /** A synchronize of its stream failed (a peer failed, the job ended, the wait timed out). */
        FAILED,
        /** Still pending when the communicator was aborted or closed: whether it ran is not known. */
        UNKNOWN;

        /** The state as dumps spell it: "enqueued", "completed", "failed", "unknown". */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One operation: a collective or point-to-point call, or the launch of a GRAPH step's graph.
     *
     * @param seq            its number on this communicator, from 1
     * @param pipeline       the pipeline whose step issued it; empty for a direct call
     * @param step           the step's name; empty for a direct call
     * @param arguments      the step's arguments, for a step with parameters; else empty
     * @param op             which call of the step it was, from 0; {@link #CALL_CHECK} for the step's check of its
     *                       arguments, {@link #GRAPH_LAUNCH} for a GRAPH step's launch, -1 for a direct call
     * @param call           "allReduce", ..., "recv", or "graph" for a GRAPH step's launch
     * @param send           the device address of the send buffer the caller passed; 0 where the call has none or
     *                       this rank does not use it (a broadcast's or scatter's send off the root)
     * @param sendOffset     the element of the send buffer the call starts at
     * @param recv           the device address of the recv buffer the caller passed; 0 where the call has none or
     *                       this rank does not use it (a reduce's or gather's recv off the root)
     * @param recvOffset     the element of the recv buffer the call starts at
     * @param count          the call's count, in elements; 0 for a graph
     * @param type           the element type's name; empty for a graph
     * @param peer           the peer of a send or recv, the root of a broadcast, reduce, gather or scatter; else -1
     * @param registration   "registered", "unregistered", "graph" or "not known": how the library reaches the buffers
     * @param graphOps       the calls inside a GRAPH step's graph, as captured; else empty
     * @param state          where it stood
     * @param enqueuedMicros when it was issued, in microseconds since the epoch
     * @param completedMicros when it completed or failed, in microseconds since the epoch; 0 while pending
     */
    public record Entry(
            long seq,
            String pipeline,
            String step,
            List<Long> arguments,
            int op,
            String call,
            long send,
            long sendOffset,
            long recv,
            long recvOffset,
            long count,
            String type,
            int peer,
            String registration,
            List<String> graphOps,
            State state,
            long enqueuedMicros,
            long completedMicros) {
        /** {@link #op} of a call a step with parameters makes to check them across ranks (R14). */
        public static final int CALL_CHECK = -2;
        /** {@link #op} of a GRAPH step's launch. */
        public static final int GRAPH_LAUNCH = -3;

        public Entry {
            arguments = List.copyOf(arguments);
            graphOps = List.copyOf(graphOps);
        }

        /** What ranks must agree on: the call, its count and type, peer or root, and the step that issued it. */
        public String signature() {
            String what = "graph".equals(call)
                    ? "graph [" + String.join(", ", graphOps) + "]"
                    : call + "(" + count + " x " + type + (peer >= 0 ? ", peer/root " + peer : "") + ")";
            if (pipeline.isEmpty()) {
                return what;
            }
            String args = arguments.stream().map(String::valueOf).collect(Collectors.joining(", "));
            String role = op == CALL_CHECK ? " (its call check)" : op >= 0 ? " op " + op : "";
            return what + " in " + pipeline + "." + step + "(" + args + ")" + role;
        }

        /** "#1042 allReduce(1000 x FLOAT32) in p.Pipeline.step() op 0" */
        @Override
        public String toString() {
            return "#" + seq + " " + signature();
        }
    }

    /** The newest entry, if any. */
    public Optional<Entry> lastEnqueued() {
        return entries.isEmpty() ? Optional.empty() : Optional.of(entries.get(entries.size() - 1));
    }

    /** The newest entry that completed, if any is kept. */
    public Optional<Entry> lastCompleted() {
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (entries.get(i).state() == State.COMPLETED) {
                return Optional.of(entries.get(i));
            }
        }
        return Optional.empty();
    }

    /** "last enqueued #12 allReduce(...) in ..., last completed #11 ..." or "nothing enqueued". */
    public String position() {
        if (entries.isEmpty()) {
            return "nothing enqueued";
        }
        return "last enqueued " + lastEnqueued().orElseThrow() + " ("
                + lastEnqueued().orElseThrow().state().label() + "), last completed "
                + lastCompleted().map(Entry::toString).orElse("none");
    }
}
