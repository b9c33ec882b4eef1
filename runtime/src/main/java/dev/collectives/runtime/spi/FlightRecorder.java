package dev.collectives.runtime.spi;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.FlightRecord.State;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.bootstrap.Progress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One communicator's flight recorder: a ring of its last operations, preallocated, so that recording one allocates
 * nothing. A backend makes one per communicator ({@link #open}) and tells it of each call it issues
 * ({@link #enqueued}) and of its abort ({@link #aborted}); streams tell every recorder when they synchronize
 * ({@link #synchronizedStream}). Which step of which pipeline issued a call comes from the generated code through
 * {@link StepContext}, on the calling thread.
 *
 * <p>Where a dump directory is set, the ring is written there once, as JSON: when a synchronize of
 * one of its calls fails (a peer failed, the job ended, the wait timed out), when the communicator is aborted, else
 * when it closes or the process exits with it open.
 *
 * <p>An entry takes 112 bytes of the ring ({@link FlightRing}: its numbers side by side, its references side by
 * side; the arguments of a step with parameters it shares with the step's call), and the ring rounds its entries up
 * to a power of two; at the default {@value #DEFAULT_ENTRIES} entries that is 224 KiB per communicator, allocated
 * when the communicator is made. With {@code entries} 0 it records nothing and holds no ring.
 *
 * <p>Recording costs a few nanoseconds and allocates nothing: the calling thread claims its entry's number with one
 * atomic add and writes the slot, two or three cache lines, without a lock, then publishes it (a seqlock: whoever
 * reads the ring, under the recorder's monitor, skips a slot whose number changed while it read). An entry's time is
 * the enqueue's to within a millisecond ({@link CoarseClock}); its completion's is exact.
 */
public final class FlightRecorder {
    /** The system property that sets how many entries a recorder keeps (0 turns it off). */
    public static final String ENTRIES_PROPERTY = "collectives.flightRecorder.entries";
    /** The environment variable read when {@link #ENTRIES_PROPERTY} is not set. */
    public static final String ENTRIES_VARIABLE = "COLLECTIVES_FLIGHT_RECORDER_ENTRIES";
    /** The system property naming a directory where each rank writes its record on failure, abort and timeout. */
    public static final String DIR_PROPERTY = "collectives.flightRecorder.dir";
    /** The environment variable read when {@link #DIR_PROPERTY} is not set. */
    public static final String DIR_VARIABLE = "COLLECTIVES_FLIGHT_RECORDER_DIR";
    /** How many entries a recorder keeps unless set otherwise. */
    public static final int DEFAULT_ENTRIES = 2000;

    private static final byte COMPLETED = (byte) State.COMPLETED.ordinal();
    private static final byte FAILED = (byte) State.FAILED.ordinal();
    private static final byte UNKNOWN = (byte) State.UNKNOWN.ordinal();

    /** An entry's registration code for a graph's launch ({@link FlightRing#write}). */
    private static final int GRAPH_REGISTRATION = 3;

    /** Every recorder alive, so that a stream's synchronize reaches the recorders of its ops. */
    private static final Map<FlightRecorder, Boolean> LIVE = Collections.synchronizedMap(new WeakHashMap<>());

    static {
        // a dump that a client asks the job's server for reaches this process's recorders through its rendezvous
        dev.collectives.runtime.bootstrap.RecordsOnDemand.install(
                directory -> writeAll(dev.collectives.runtime.FlightRecord.ASKED, directory));
    }

    /** Dumps the rings of the communicators still open when the process exits, once a dump directory is set. */
    private static final Thread DUMP_AT_EXIT = new Thread(FlightRecorder::dumpAtExit, "collectives-flight-dump");

    private static boolean dumpAtExitAdded;
    /**
     * How many communicators of each size each rank of this process made, to number them alike on every rank on the
     * heartbeats and the job's page ({@link #progress}), also where ranks of communicators of other sizes share the
     * process (sim). The records name their communicator by its {@link Lineage}.
     */
    private static final Map<List<Integer>, Integer> MADE = new HashMap<>();

    private final Communicator owner;
    private final int rank;
    private final int size;
    private final String backend;
    private final Lineage lineage;
    /** Its number on the heartbeats: see {@link #MADE}. */
    private final int number;

    private final int capacity;
    private final Optional<java.nio.file.Path> dumpDirectory;
    private final long wallMicrosAtNanoZero;
    /** The calls captured into each GRAPH step's graph, by pipeline and step. */
    private final Map<String, Map<String, List<String>>> graphOps = new ConcurrentHashMap<>();

    /** The entries, in a ring of at least {@link #capacity} slots. */
    private final FlightRing ring;
    /** Whether the ring was dumped: a rank writes it once, at the first reason. */
    private boolean dumped;

    private FlightRecorder(
            Communicator owner,
            int rank,
            int size,
            String backend,
            Lineage lineage,
            int capacity,
            Optional<java.nio.file.Path> dumpDirectory) {
        this.owner = owner;
        this.rank = rank;
        this.size = size;
        this.backend = backend;
        this.lineage = lineage;
        this.capacity = capacity;
        this.dumpDirectory = dumpDirectory;
        this.wallMicrosAtNanoZero = System.currentTimeMillis() * 1000 - System.nanoTime() / 1000;
        synchronized (MADE) {
            this.number = MADE.merge(List.of(rank, size), 1, Integer::sum) - 1;
        }
        this.ring = new FlightRing(capacity);
    }

    /**
     * The recorder of {@code owner}, rank {@code rank} of {@code size} on {@code backend}, the communicator
     * {@code lineage} names, sized by
     * {@value #ENTRIES_PROPERTY} (or {@value #ENTRIES_VARIABLE}), dumping where {@value #DIR_PROPERTY} (or
     * {@value #DIR_VARIABLE}) says.
     */
    public static FlightRecorder open(Communicator owner, int rank, int size, String backend, Lineage lineage) {
        int entries = setting(ENTRIES_PROPERTY, ENTRIES_VARIABLE)
                .map(text -> entries(rank, text))
                .orElse(DEFAULT_ENTRIES);
        Optional<java.nio.file.Path> directory =
                setting(DIR_PROPERTY, DIR_VARIABLE).map(java.nio.file.Path::of);
        FlightRecorder recorder = new FlightRecorder(owner, rank, size, backend, lineage, entries, directory);
        LIVE.put(recorder, Boolean.TRUE);
        if (recorder.isOn()) {
            CoarseClock.start(FlightRecorder::anyOn);
        }
        if (directory.isPresent()) {
            synchronized (DUMP_AT_EXIT) {
                if (!dumpAtExitAdded) {
                    Runtime.getRuntime().addShutdownHook(DUMP_AT_EXIT);
                    dumpAtExitAdded = true;
                }
            }
        }
        return recorder;
    }

    /** The system property, else the environment variable; empty when neither is set. */
    static Optional<String> setting(String property, String variable) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(variable);
        }
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    private static int entries(int rank, String text) {
        try {
            int entries = Integer.parseInt(text);
            if (entries >= 0) {
                return entries;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw CollectivesException.usage(
                rank,
                "the flight recorder's entries (" + ENTRIES_VARIABLE + " or -D" + ENTRIES_PROPERTY + ") is '" + text
                        + "', not a whole number of 0 or more (0 turns it off)");
    }

    /** The recorder that {@link #open} made for {@code comm}, if any. */
    static Optional<FlightRecorder> of(Communicator comm) {
        synchronized (LIVE) {
            for (FlightRecorder recorder : LIVE.keySet()) {
                if (recorder.owner == comm) {
                    return Optional.of(recorder);
                }
            }
        }
        return Optional.empty();
    }

    /** Whether it keeps anything. */
    public boolean isOn() {
        return capacity > 0;
    }

    /** Whether a recorder alive keeps anything: the clock of entries ticks only then. */
    private static boolean anyOn() {
        synchronized (LIVE) {
            for (FlightRecorder recorder : LIVE.keySet()) {
                if (recorder.isOn()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The backend issued an op of {@code kind} on {@code on}: into its capture when {@code capturing}, where it
     * becomes part of the graph of the step being captured, else onto the stream. {@code registered} is whether the
     * library reaches the buffers registered, null if not known. {@code send} and {@code recv} are the addresses of
     * the buffers the caller passed, 0 for a side the op lacks or this rank does not use, and the offsets are the
     * elements the op starts at in them; every backend records them so.
     *
     * @return the entry's number, which the backend's messages about the call name, so that they, the dump and the
     *     trace agree; 0 for a call captured into a graph, which is numbered when the graph is launched
     */
    public long enqueued(
            OpKind kind,
            long send,
            long sendOffset,
            long recv,
            long recvOffset,
            long count,
            DataType type,
            int peer,
            Stream on,
            boolean capturing,
            Boolean registered) {
        if (capturing) {
            StepContext.current().captured(owner, kind.method(), count, type, peer);
            return 0;
        }
        long seq = ring.claim();
        if (capacity == 0) {
            return seq; // numbered all the same, so that messages name calls alike however it is set
        }
        StepContext context = StepContext.current();
        boolean inStep = context.isFor(owner);
        ring.write(
                seq,
                kind.method(),
                inStep ? context.pipeline() : "",
                inStep ? context.step() : "",
                inStep ? context.arguments() : null,
                inStep ? context.nextOp() : -1,
                send,
                sendOffset,
                recv,
                recvOffset,
                count,
                type,
                peer,
                registered == null ? 0 : registered ? 1 : 2,
                on,
                null);
        return seq;
    }

    /**
     * The backend launched a graph of this communicator's calls on {@code on}: one entry, which holds the calls
     * captured into it when it is a GRAPH step's graph, launched in that step on the calling thread.
     *
     * @return the entry's number, which the backend's messages about the graph's calls name
     */
    public long graphLaunched(Stream on) {
        long seq = ring.claim();
        if (capacity == 0) {
            return seq;
        }
        StepContext context = StepContext.current();
        boolean inStep = context.isReplayFor(owner);
        String pipelineName = inStep ? context.pipeline() : "";
        String stepName = inStep ? context.step() : "";
        ring.write(
                seq,
                "graph",
                pipelineName,
                stepName,
                inStep ? context.arguments() : null,
                Entry.GRAPH_LAUNCH,
                0,
                0,
                0,
                0,
                0,
                null,
                -1,
                GRAPH_REGISTRATION,
                on,
                callsInGraph(pipelineName, stepName));
        return seq;
    }

    /** The calls captured into the graph of {@code stepName} of {@code pipelineName}, as the last capture left them. */
    private List<String> callsInGraph(String pipelineName, String stepName) {
        return graphOps.getOrDefault(pipelineName, Map.of()).getOrDefault(stepName, List.of());
    }

    /** The calls a capture of {@code stepName} of {@code pipelineName} issued (called by {@link StepContext}). */
    void captured(String pipelineName, String stepName, List<String> calls) {
        graphOps.computeIfAbsent(pipelineName, p -> new ConcurrentHashMap<>()).put(stepName, List.copyOf(calls));
    }

    /**
     * {@code on} synchronized: every recorder's entries issued on it and still pending completed, or failed when
     * {@code failure} is not null; then the recorders that saw a failure dump their ring.
     */
    public static void synchronizedStream(Stream on, RuntimeException failure) {
        List<FlightRecorder> recorders;
        synchronized (LIVE) {
            recorders = new ArrayList<>(LIVE.keySet());
        }
        for (FlightRecorder recorder : recorders) {
            if (recorder.settle(on, failure == null ? COMPLETED : FAILED) && failure != null) {
                FlightEvents.failed(recorder.rank, recorder.backend, failure.getMessage(), recorder::position);
                recorder.dump("failure: " + failure.getMessage());
            }
        }
    }

    /** Settles the pending entries on {@code on} (every stream when null); whether there were any. */
    private synchronized boolean settle(Object on, byte settled) {
        return ring.settle(on, settled, System.nanoTime());
    }

    /** The communicator was aborted: what was pending is not known to have run; dumps its ring. */
    public void aborted() {
        settle(null, UNKNOWN);
        FlightEvents.aborted(rank, backend, this::position);
        dump("abort");
    }

    /** The communicator closed: its ring is dumped (if it was not) and no synchronize reaches it any more. */
    public void closed() {
        dump("close");
        LIVE.remove(this);
    }

    private static void dumpAtExit() {
        List<FlightRecorder> open;
        synchronized (LIVE) {
            open = new ArrayList<>(LIVE.keySet());
        }
        open.forEach(recorder -> recorder.dump("exit"));
    }

    /** This rank's place: its last enqueued and last completed entry, for failure messages. */
    public String position() {
        return snapshot().position();
    }

    /**
     * Where this communicator stands, for this rank's heartbeats: its last entry enqueued, the entry up to which
     * every entry settled (completed, failed or aborted), and the call of the first that did not. With no ring
     * nothing is known to have settled.
     */
    public synchronized Progress.Place progress() {
        long last = ring.last();
        long settled = ring.settledUpTo(last);
        return new Progress.Place(
                String.join(" > ", lineage.steps()),
                size,
                last,
                settled,
                settled < last ? ring.callOf(settled + 1) : "");
    }

    /** What the ring holds now, oldest first. */
    public synchronized FlightRecord snapshot() {
        long last = ring.last();
        List<Entry> entries = ring.entries(last, this::micros);
        return new FlightRecord(rank, size, backend, lineage.job(), lineage.steps(), capacity, last, entries);
    }

    private long micros(long nanos) {
        return wallMicrosAtNanoZero + nanos / 1000;
    }

    /**
     * Writes the ring to the dump directory, if one is set and it was not written yet ({@link #write}): a rank writes
     * its record once, at the first of a failure, an abort, a close or the process's exit.
     */
    void dump(String reason) {
        synchronized (this) {
            if (dumpDirectory.isEmpty() || capacity == 0 || dumped) {
                return;
            }
            dumped = true;
        }
        write(dumpDirectory.get(), reason);
    }

    /**
     * Every communicator of this process still open writes its record into {@code directory} now, else into the dump
     * directory where one is set, for {@code reason} ("asked"): also one that wrote its record before, replacing
     * that file, and without keeping one from writing it again at a failure, abort or close. A recorder that is off
     * writes nothing.
     *
     * @return the files written, by communicator and rank
     */
    public static List<java.nio.file.Path> writeAll(String reason, Optional<java.nio.file.Path> directory) {
        List<FlightRecorder> open;
        synchronized (LIVE) {
            open = new ArrayList<>(LIVE.keySet());
        }
        List<java.nio.file.Path> written = new ArrayList<>();
        for (FlightRecorder recorder : open) {
            directory
                    .or(() -> recorder.dumpDirectory)
                    .filter(d -> recorder.capacity > 0)
                    .flatMap(d -> recorder.write(d, reason))
                    .ifPresent(written::add);
        }
        written.sort(null);
        return written;
    }

    /**
     * Writes the ring into {@code directory} as {@code flight-<job>-c<communicator>-rank<rank>.json} ({@link
     * #fileName}, {@link FlightRecordJson}); a failure to write is logged, never thrown: the job's own failure
     * matters more.
     *
     * @return the file, where it was written
     */
    private Optional<java.nio.file.Path> write(java.nio.file.Path directory, String reason) {
        java.nio.file.Path file = directory.resolve(fileName(lineage, rank));
        try {
            FlightRecordJson.write(snapshot(), reason, file);
            return Optional.of(file);
        } catch (java.io.IOException | RuntimeException e) {
            System.getLogger("dev.collectives.flight")
                    .log(
                            System.Logger.Level.WARNING,
                            "rank " + rank + " could not write its flight record to " + file + ": " + e);
            return Optional.empty();
        }
    }

    /**
     * "flight-3fa2c1d0e9b7-c5d2e91a0c4-rank1.json": the job's id, a digest of the communicator's lineage (which the
     * record holds in words) and the rank, so that no other communicator's record, of this job or another, replaces it.
     */
    static String fileName(Lineage lineage, int rank) {
        return "flight-" + lineage.job() + "-c" + lineage.digest() + "-rank" + rank + ".json";
    }
}
