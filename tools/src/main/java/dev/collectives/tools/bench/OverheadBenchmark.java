package dev.collectives.tools.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.backend.device.NativeLoop;
import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.ClusterOptions;
import dev.collectives.examples.HelpAndVersion;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.FlightRecorder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The per-op overhead of the Java calls over the native ones, measured so that order and drift cancel: one
 * process, one communicator, the same buffers and stream; in each of many rounds every (mode, size, side) cell
 * runs one batch, the cells in a fresh random order (the same on every rank); per-op times go into HdrHistogram
 * histograms per cell, and each round's Java − native difference of a cell into its paired list. Reports the
 * spread (p10, p50, p90) of both sides and the median of the paired differences, of the whole time per op and of
 * the host enqueue alone. The native side is the same op from a C loop ({@link NativeBaseline}); a third side
 * calls that loop for one op at a time, which splits the difference into the Java call's own work and the JNI
 * crossing. In GRAPH mode all sides launch the same graph. The whole measurement runs once per flight-recorder setting
 * of {@code --recorder} (off, then on, by default), each on communicators of its own, and the report names the card.
 */
@Command(
        name = "overhead",
        versionProvider = BuildVersion.class,
        sortOptions = false,
        description = {
            "Measures Java minus native time per op (eager and per graph launch) with Java and native "
                    + "interleaved in one process, cells in random order over many rounds, the spread shown."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:measured",
            "1:the run failed (a backend without a native baseline)",
            "2:a bad command line, or an unavailable backend"
        })
public final class OverheadBenchmark implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    private static final double EAGER_AIM_US = 0.15;
    private static final double GRAPH_AIM_US = 0.05;
    /** Sides of a cell: the Java call, the native loop, and the native loop called once per op from Java. */
    private static final int JAVA = 0;

    private static final int NATIVE = 1;
    private static final int JNI = 2;
    private static final int SIDES = 3;

    @Mixin
    ClusterOptions cluster = new ClusterOptions("nccl", "1");

    int ranks;

    @Option(
            names = "--op",
            paramLabel = "OP",
            converter = Op.Parser.class,
            completionCandidates = Op.Names.class,
            description = "op: ${COMPLETION-CANDIDATES}; default: ${DEFAULT-VALUE}")
    Op op = new Op(OpKind.ALL_REDUCE);

    @Option(
            names = "--modes",
            paramLabel = "MODE",
            split = ",",
            defaultValue = "none,local,graph",
            description = "modes, comma-separated: ${COMPLETION-CANDIDATES}; default: ${DEFAULT-VALUE}")
    List<Mode> modes;

    @Option(
            names = "--min",
            paramLabel = "BYTES",
            defaultValue = "8",
            description = "smallest size in bytes; default: ${DEFAULT-VALUE}")
    long minBytes;

    @Option(
            names = "--max",
            paramLabel = "BYTES",
            defaultValue = "4096",
            description = "largest size in bytes; default: ${DEFAULT-VALUE}")
    long maxBytes;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "400",
            description = "rounds; default: ${DEFAULT-VALUE}")
    int rounds;

    @Option(
            names = "--recorder",
            paramLabel = "SETTING",
            split = ",",
            defaultValue = "off,on",
            description = "the flight recorder's settings, each measured in turn on communicators of its own: off "
                    + "(0 entries) or on (the default ring); default: ${DEFAULT-VALUE}")
    List<Recorder> recorders;

    @Option(
            names = "--batch",
            paramLabel = "N",
            defaultValue = "50",
            description = "ops per cell and round; default: ${DEFAULT-VALUE}")
    int batch;

    @Option(
            names = "--seed",
            paramLabel = "SEED",
            defaultValue = "1",
            description = "seed of the cell order; default: ${DEFAULT-VALUE}")
    long seed;

    @Option(names = "--csv", paramLabel = "FILE", description = "also write the rows as CSV")
    Path csv;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the rows as JSON")
    Path json;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new OverheadBenchmark()).execute(args));
    }

    /** The flight recorder's setting while the communicators of a measurement are made. */
    enum Recorder {
        OFF("0"),
        ON(String.valueOf(FlightRecorder.DEFAULT_ENTRIES));

        final String entries;

        Recorder(String entries) {
            this.entries = entries;
        }
    }

    /** One (mode, size) pair: its two sides' histograms (ns per op) and paired differences per round. */
    private final class Cell {
        final Mode mode;
        final long bytes;
        final long count;
        final Histogram[] elapsed = {new Histogram(3), new Histogram(3), new Histogram(3)};
        final Histogram[] host = {new Histogram(3), new Histogram(3), new Histogram(3)};
        final long[][] roundElapsed = new long[SIDES][rounds];
        final long[][] roundHost = new long[SIDES][rounds];

        Cell(Mode mode, long bytes) {
            this.mode = mode;
            this.bytes = bytes;
            this.count = op.count(bytes, ranks);
        }
    }

    @Override
    public Integer call() throws IOException {
        Backend b = cluster.backend().get();
        ranks = cluster.ranks().count();
        BenchCommandLine.positive(spec, "--rounds", rounds);
        BenchCommandLine.positive(spec, "--batch", batch);
        List<Long> sizes = BenchCommandLine.doublingSizes(spec, minBytes, maxBytes);
        BenchCommandLine.requireOneElement(spec, List.of(op), ranks, sizes);
        System.out.printf("# card: %s%n", Cards.describe());
        Results results = new Results();
        String before = System.getProperty(FlightRecorder.ENTRIES_PROPERTY);
        try {
            for (Recorder recorder : recorders) {
                System.setProperty(FlightRecorder.ENTRIES_PROPERTY, recorder.entries);
                List<Cell> cells = new ArrayList<>();
                for (Mode mode : modes) {
                    for (long bytes : sizes) {
                        if (op.count(bytes, ranks) > 0) {
                            cells.add(new Cell(mode, bytes));
                        }
                    }
                }
                measure(b, cells);
                report(recorder, cells, results);
            }
        } finally {
            if (before == null) {
                System.clearProperty(FlightRecorder.ENTRIES_PROPERTY);
            } else {
                System.setProperty(FlightRecorder.ENTRIES_PROPERTY, before);
            }
        }
        if (csv != null) {
            results.writeCsv(csv);
        }
        if (json != null) {
            results.writeJson(json);
        }
        return BenchCommandLine.PASSED;
    }

    /** Every cell's rounds, on communicators made now (so with the flight recorder as set now). */
    private void measure(Backend b, List<Cell> cells) {
        long[] elapsedNs = new long[ranks];
        long[] hostNs = new long[ranks];
        CyclicBarrier barrier = new CyclicBarrier(ranks);
        try (LocalCluster cluster = b.local(ranks)) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                int rank = ctx.rank();
                if (!NativeBaseline.supports(comm)) {
                    throw new IllegalArgumentException("backend " + b.name() + " has no native baseline");
                }
                List<AutoCloseable> resources = new ArrayList<>();
                try {
                    Batch[][] prepared = new Batch[cells.size()][];
                    for (int c = 0; c < cells.size(); c++) {
                        prepared[c] = prepare(cells.get(c), comm, stream, resources);
                    }
                    for (Batch[] sides : prepared) { // warm-up: the JIT compiles both paths
                        for (int i = 0; i < 40; i++) {
                            sides[i % SIDES].issue(stream, batch);
                        }
                        stream.synchronize();
                    }
                    int[] order = new int[SIDES * cells.size()];
                    Arrays.setAll(order, i -> i);
                    Random random = new Random(seed);
                    for (int round = 0; round < rounds; round++) {
                        shuffle(order, random);
                        for (int slot : order) {
                            Cell cell = cells.get(slot / SIDES);
                            int side = slot % SIDES;
                            barrier.await(120, TimeUnit.SECONDS);
                            long start = System.nanoTime();
                            prepared[slot / SIDES][side].issue(stream, batch);
                            long enqueued = System.nanoTime();
                            stream.synchronize();
                            elapsedNs[rank] = (System.nanoTime() - start) / batch;
                            hostNs[rank] = (enqueued - start) / batch;
                            barrier.await(120, TimeUnit.SECONDS);
                            if (rank == 0) {
                                long e = Arrays.stream(elapsedNs).max().getAsLong();
                                long h = Arrays.stream(hostNs).max().getAsLong();
                                cell.elapsed[side].recordValue(e);
                                cell.host[side].recordValue(h);
                                cell.roundElapsed[side][round] = e;
                                cell.roundHost[side][round] = h;
                            }
                            barrier.await(120, TimeUnit.SECONDS);
                        }
                    }
                } finally {
                    Collections.reverse(resources); // graphs before the memory they use
                    for (AutoCloseable r : resources) {
                        r.close();
                    }
                }
            });
        }
    }

    /** A cell's sides on this rank: the op on its own buffers, or launches of its graph. */
    private Batch[] prepare(Cell cell, Communicator comm, Stream stream, List<AutoCloseable> resources)
            throws Exception {
        DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, op.sendBytes(cell.bytes, ranks));
        resources.add(send);
        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, op.recvBytes(cell.bytes, ranks));
        resources.add(recv);
        resources.add(cell.mode.register(comm, send, recv));
        DeviceBuffer s = send.view(0, DataType.FLOAT32, send.sizeBytes() / 4);
        DeviceBuffer r = recv.view(0, DataType.FLOAT32, recv.sizeBytes() / 4);
        Step call = st -> op.call(comm, s, r, cell.count, st);
        if (cell.mode != Mode.GRAPH) {
            NativeLoop.Prepared loop = op.prepareNative(comm, s, r, cell.count, stream);
            return new Batch[] {call.batch(), (st, n) -> loop.run(n), (st, n) -> runOneAtATime(loop, n)};
        }
        call.issue(stream); // the library sets up this size's connections outside the capture
        stream.synchronize();
        stream.beginCapture();
        call.issue(stream);
        Graph graph = stream.endCapture();
        resources.add(graph);
        GraphExec exec = graph.instantiate();
        resources.add(exec);
        Step launch = exec::launch;
        NativeLoop.Prepared loop = NativeLoop.prepareLaunch(comm, exec, stream);
        return new Batch[] {launch.batch(), (st, n) -> loop.run(n), (st, n) -> runOneAtATime(loop, n)};
    }

    /** The jni side: the native loop called for one op at a time, its arguments read once (one JNI crossing each). */
    private static void runOneAtATime(NativeLoop.Prepared loop, int ops) {
        for (int i = 0; i < ops; i++) {
            loop.run(1);
        }
    }

    private static void shuffle(int[] order, Random random) {
        for (int i = order.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }

    private void report(Recorder recorder, List<Cell> cells, Results results) {
        System.out.printf(
                "# OverheadBenchmark: backend %s, %d rank(s), %s float32, %d rounds × %d ops per cell, "
                        + "cells (mode, size, side) in random order per round (seed %d); time = first enqueue to end of "
                        + "stream work per op, slowest rank; host = enqueue loop alone; µs; flight recorder %s%n",
                cluster.backend().name(), ranks, op.name(), rounds, batch, seed, name(recorder));
        System.out.printf("# sides: java = the Java call; native = the same op from a C loop; jni = that C loop "
                + "called for one op at a time from Java%n");
        System.out.printf(
                "# %-6s %8s | %-20s | %-20s | %7s %7s | %8s %8s %8s%n",
                "mode",
                "size(B)",
                "java p10/p50/p90",
                "native p10/p50/p90",
                "host j",
                "host n",
                "java-nat",
                "java-jni",
                "jni-nat");
        for (Cell c : cells) {
            double javaNative = pairedMedianUs(c.roundElapsed, JAVA, NATIVE);
            double javaJni = pairedMedianUs(c.roundElapsed, JAVA, JNI);
            double jniNative = pairedMedianUs(c.roundElapsed, JNI, NATIVE);
            System.out.printf(
                    Locale.ROOT,
                    "  %-6s %8d | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %7.3f %7.3f | " + "%+8.3f %+8.3f %+8.3f%n",
                    BenchFormat.name(c.mode),
                    c.bytes,
                    us(c.elapsed[JAVA], 10),
                    us(c.elapsed[JAVA], 50),
                    us(c.elapsed[JAVA], 90),
                    us(c.elapsed[NATIVE], 10),
                    us(c.elapsed[NATIVE], 50),
                    us(c.elapsed[NATIVE], 90),
                    us(c.host[JAVA], 50),
                    us(c.host[NATIVE], 50),
                    javaNative,
                    javaJni,
                    jniNative);
            results.add(
                    "op",
                    op.name(),
                    "recorder",
                    name(recorder),
                    "mode",
                    BenchFormat.name(c.mode),
                    "ranks",
                    ranks,
                    "bytes",
                    c.bytes,
                    "java_p10_us",
                    us(c.elapsed[JAVA], 10),
                    "java_p50_us",
                    us(c.elapsed[JAVA], 50),
                    "java_p90_us",
                    us(c.elapsed[JAVA], 90),
                    "native_p10_us",
                    us(c.elapsed[NATIVE], 10),
                    "native_p50_us",
                    us(c.elapsed[NATIVE], 50),
                    "native_p90_us",
                    us(c.elapsed[NATIVE], 90),
                    "jni_p50_us",
                    us(c.elapsed[JNI], 50),
                    "java_host_p50_us",
                    us(c.host[JAVA], 50),
                    "native_host_p50_us",
                    us(c.host[NATIVE], 50),
                    "java_minus_native_us",
                    javaNative,
                    "java_minus_jni_us",
                    javaJni,
                    "jni_minus_native_us",
                    jniNative,
                    "host_java_minus_native_us",
                    pairedMedianUs(c.roundHost, JAVA, NATIVE));
        }
        System.out.printf(
                "# a-b: median over rounds of (a − b) of the same cell and round, time per op%n# Summary: "
                        + "median over sizes, against the aim |Java − native| ≤ %.1f µs eager, ≤ %.1f µs per graph launch%n",
                EAGER_AIM_US, GRAPH_AIM_US);
        for (Mode mode : modes) {
            List<Double> javaNative = new ArrayList<>();
            List<Double> javaJni = new ArrayList<>();
            List<Double> jniNative = new ArrayList<>();
            List<Double> host = new ArrayList<>();
            for (Cell c : cells) {
                if (c.mode == mode) {
                    javaNative.add(pairedMedianUs(c.roundElapsed, JAVA, NATIVE));
                    javaJni.add(pairedMedianUs(c.roundElapsed, JAVA, JNI));
                    jniNative.add(pairedMedianUs(c.roundElapsed, JNI, NATIVE));
                    host.add(pairedMedianUs(c.roundHost, JAVA, NATIVE));
                }
            }
            double aim = mode == Mode.GRAPH ? GRAPH_AIM_US : EAGER_AIM_US;
            double median = Double.parseDouble(BenchFormat.median(javaNative, "%.4f"));
            System.out.printf(
                    Locale.ROOT,
                    "# %-6s recorder %-3s java-native %s us (host enqueue %s us): %s; of which java-jni "
                            + "(the Java call's own work) %s us, jni-native (one JNI crossing per op) %s us%n",
                    BenchFormat.name(mode),
                    name(recorder),
                    BenchFormat.median(javaNative, "%+.3f"),
                    BenchFormat.median(host, "%+.3f"),
                    Math.abs(median) <= aim ? "within the aim" : "OUTSIDE the aim",
                    BenchFormat.median(javaJni, "%+.3f"),
                    BenchFormat.median(jniNative, "%+.3f"));
        }
    }

    private static String name(Recorder recorder) {
        return recorder.name().toLowerCase(Locale.ROOT);
    }

    private static double us(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e3;
    }

    /** The median over rounds of side {@code a} minus side {@code b}, in µs. */
    private static double pairedMedianUs(long[][] perRound, int a, int b) {
        long[] d = new long[perRound[a].length];
        for (int i = 0; i < d.length; i++) {
            d[i] = perRound[a][i] - perRound[b][i];
        }
        Arrays.sort(d);
        return d[d.length / 2] / 1e3;
    }
}
