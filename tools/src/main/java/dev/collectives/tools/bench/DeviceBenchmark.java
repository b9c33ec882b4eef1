package dev.collectives.tools.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.ClusterOptions;
import dev.collectives.examples.HelpAndVersion;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Stream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * nccl-tests-style tables of allreduce, allgather and reducescatter (float32) on a native backend: per size the
 * time, algbw, busbw and #wrong (each size checked element by element) out of place and in place, for the Java
 * calls beside the native baseline — the same op enqueued by a C loop in this process on the same communicator,
 * buffers and stream ({@link NativeBaseline}) — and in each registration mode. Java and native rounds alternate,
 * so drift on the machine touches both. On the sim backend the native columns stay empty.
 */
@Command(
        name = "device",
        versionProvider = BuildVersion.class,
        defaultValueProvider = DeviceBenchmark.DefaultOps.class,
        sortOptions = false,
        description = {
            "Times collectives on a backend like nccl-tests: size, count, type, redop, time, algbw, busbw "
                    + "and #wrong, out of place and in place, the Java calls beside the same calls from a C loop in "
                    + "this process."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every size of every table was right",
            "1:a size had wrong elements, or the run failed",
            "2:a bad command line, or an unavailable backend"
        })
public final class DeviceBenchmark implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    private static final long MIB = 1 << 20;

    @Mixin
    ClusterOptions cluster = new ClusterOptions("nccl", "1");

    int ranks;

    @Option(
            names = "--min",
            paramLabel = "BYTES",
            defaultValue = "8",
            description = "smallest size in bytes; default: ${DEFAULT-VALUE}")
    long minBytes;

    @Option(
            names = "--max",
            paramLabel = "BYTES",
            defaultValue = "1073741824",
            description = "largest size in bytes; sizes double from --min. It bounds the generated pipelines too, "
                    + "which declare buffers of 1 GiB; default: ${DEFAULT-VALUE}")
    long maxBytes;

    @Option(
            names = "--ops",
            paramLabel = "OP",
            split = ",",
            converter = Op.Parser.class,
            completionCandidates = Op.Names.class,
            description = "ops, comma-separated: ${COMPLETION-CANDIDATES}; default: ${DEFAULT-VALUE}")
    List<Op> ops;

    /** The default of {@code --ops}, {@link Op#defaults()}, named from the catalogue rather than spelled here. */
    static final class DefaultOps implements IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec argument) {
            return argument instanceof OptionSpec option && option.longestName().equals("--ops")
                    ? Op.defaults()
                    : null; // the option's own default
        }
    }

    @Option(
            names = "--modes",
            paramLabel = "MODE",
            split = ",",
            defaultValue = "none,local,graph",
            description = "registration modes, comma-separated: ${COMPLETION-CANDIDATES}; default: ${DEFAULT-VALUE}")
    List<Mode> modes;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "3",
            description = "timed rounds per size and side; the best counts; default: ${DEFAULT-VALUE}")
    int rounds;

    @Option(
            names = "--pipelines",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "also time the generated benchmark pipelines' steps of the ops in --ops and from --min "
                    + "(2 ranks and --max of 1 GiB only; default: on)")
    boolean pipelines;

    @Mixin
    ResultFiles files = new ResultFiles();

    @Option(
            names = "--plot",
            paramLabel = "FILE",
            description = "also draw busbw against size of the first op as a PNG, a line per mode (needs the "
                    + "java.desktop module; else draw it later from --csv with the plot command)")
    Path plot;

    @Option(names = "--out", paramLabel = "FILE", description = "also write the printed tables to FILE")
    Path textFile;

    @Spec
    CommandSpec spec;

    private PrintStream out = System.out;
    private List<Long> sizes;
    private final Results results = new Results();
    private final AtomicLong wrong = new AtomicLong();

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new DeviceBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Backend b = cluster.backend().get();
        ranks = cluster.ranks().count();
        BenchCommandLine.positive(spec, "--rounds", rounds);
        sizes = BenchCommandLine.doublingSizes(spec, minBytes, maxBytes);
        BenchCommandLine.requireOneElement(spec, ops, ranks, sizes);
        try (PrintStream file = textFile == null
                ? null
                : new PrintStream(Files.newOutputStream(textFile), true, StandardCharsets.UTF_8)) {
            out = file == null ? System.out : new Tee(System.out, file);
            run(b);
        }
        if (plot != null) {
            BusbwChart.write(
                    results, ops.get(0).name(), String.format(Locale.ROOT, "%s, %d rank(s)", b.name(), ranks), plot);
        }
        return wrong.get() == 0 ? BenchCommandLine.PASSED : BenchCommandLine.FAILED;
    }

    /** The rows so far into the --csv and --json files: rewritten after each table, so a run cut short keeps them. */
    private void writeRows() throws IOException {
        files.write(results);
    }

    private void run(Backend b) throws IOException {
        out.printf(
                "# DeviceBenchmark: backend %s, %d rank(s), float32, %d..%d bytes; iterations 1000 up to 64 KiB, "
                        + "100 up to 64 MiB, 20 above; best of %d rounds per side, Java and native rounds alternating%n",
                b.name(), ranks, minBytes, maxBytes, rounds);
        out.printf("# time: wall clock per op, slowest rank; native: the same op from a C loop in this process on the "
                + "same communicator, buffers and stream; #wrong: elements that differ from the expected result%n");
        Map<String, Map<Long, Row>> java = new LinkedHashMap<>();
        Map<String, Map<Long, Row>> nativeRows = new LinkedHashMap<>();
        try (LocalCluster cluster = b.local(ranks)) {
            for (Op op : ops) {
                for (Mode mode : modes) {
                    List<SizeRow> rows = measure(cluster, op, mode);
                    print(op, mode, rows);
                    writeRows();
                    String key = op + "/" + mode;
                    for (SizeRow r : rows) {
                        java.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(r.bytes, r.java[0]);
                        if (r.nat[0] != null) {
                            nativeRows
                                    .computeIfAbsent(key, k -> new LinkedHashMap<>())
                                    .put(r.bytes, r.nat[0]);
                        }
                    }
                }
            }
            if (pipelines) {
                new PipelineBenchmark(this, out).run(cluster, java, nativeRows);
            }
        }
        summarize(java, nativeRows);
    }

    /** A size's rows: [0] out of place, [1] in place, for each side; #wrong per placement and side. */
    private static final class SizeRow {
        final long bytes;
        final long count;
        final Row[] java = new Row[2];
        final Row[] nat = new Row[2];
        final long[] javaWrong = new long[2];
        final long[] nativeWrong = new long[2];

        SizeRow(long bytes, long count) {
            this.bytes = bytes;
            this.count = count;
        }
    }

    private List<SizeRow> measure(LocalCluster cluster, Op op, Mode mode) {
        List<SizeRow> rows = new ArrayList<>();
        for (long bytes : sizes) {
            long count = op.count(bytes, ranks);
            if (count > 0) {
                rows.add(new SizeRow(op.totalBytes(count, ranks), count));
            }
        }
        Timer timer = new Timer(ranks);
        long sendBytes = op.sendBytes(maxBytes, ranks);
        long recvBytes = op.recvBytes(maxBytes, ranks);
        cluster.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            int rank = ctx.rank();
            boolean withNative = NativeBaseline.supports(comm);
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, sendBytes);
                    DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, recvBytes);
                    AutoCloseable registered = mode.register(comm, send, recv)) {
                Placement first = new Placement(op, comm, send, recv, rows.get(0).count, false);
                Timer.warmUp(stream, s -> op.call(comm, first.send, first.recv, first.count, s));
                for (SizeRow row : rows) {
                    for (int p = 0; p < placements(op, mode); p++) {
                        Placement at = new Placement(op, comm, send, recv, row.count, p == 1);
                        Sides sides = Sides.of(mode, comm, stream, at);
                        try (sides) {
                            long javaWrong = at.check(stream, sides.java());
                            long nativeWrong = withNative ? at.check(stream, sides.nat()) : 0;
                            double[][] best = timer.timeBoth(
                                    rank,
                                    stream,
                                    sides.java(),
                                    sides.nat(),
                                    Timer.iterations(row.bytes),
                                    rounds,
                                    withNative);
                            long[] wrongs = timer.sum(rank, javaWrong, nativeWrong);
                            if (rank == 0) {
                                row.java[p] = row(op, row.count, best[0]);
                                row.nat[p] = withNative ? row(op, row.count, best[1]) : null;
                                row.javaWrong[p] = wrongs[0];
                                row.nativeWrong[p] = wrongs[1];
                            }
                        }
                    }
                }
            }
        });
        for (SizeRow row : rows) {
            for (int p = 0; p < placements(op, mode); p++) {
                wrong.addAndGet(row.javaWrong[p] + row.nativeWrong[p]);
                record(op, mode, p, "java", row.java[p], row.javaWrong[p]);
                if (row.nat[p] != null) {
                    record(op, mode, p, "native", row.nat[p], row.nativeWrong[p]);
                }
            }
        }
        return rows;
    }

    /**
     * 2 (out of place and in place), or 1 where in place would put each rank's buffer at a different offset, which
     * graph registration and symmetric windows refuse (R2) beyond one rank.
     */
    private int placements(Op op, Mode mode) {
        // in place at one offset on every rank where both sides hold as many elements (see Placement)
        boolean sameOffsets = op.kind().sendExtent() == op.kind().recvExtent();
        return sameOffsets || ranks == 1 || mode == Mode.NONE || mode == Mode.LOCAL ? 2 : 1;
    }

    private void record(Op op, Mode mode, int placement, String impl, Row row, long wrongElements) {
        results.add(
                "op",
                op.name(),
                "mode",
                BenchFormat.name(mode),
                "placement",
                placement == 0 ? "out-of-place" : "in-place",
                "impl",
                impl,
                "ranks",
                ranks,
                "bytes",
                row.bytes(),
                "count",
                row.count(),
                "type",
                "float",
                "redop",
                op.redop(),
                "time_us",
                row.timeUs(),
                "algbw",
                row.algbw(),
                "busbw",
                row.busbw(),
                "host_us",
                row.hostUs(),
                "wrong",
                wrongElements);
    }

    /** A measured size of {@code op} with {@code count} elements per rank's call, from {@link Timer#time}. */
    Row row(Op op, long count, double[] timeAndHostUs) {
        long total = op.totalBytes(count, ranks);
        double algbw = total / timeAndHostUs[0] / 1e3;
        return new Row(total, count, timeAndHostUs[0], algbw, algbw * op.busFactor(ranks), timeAndHostUs[1]);
    }

    long totalBytes(Op op, long count) {
        return op.totalBytes(count, ranks);
    }

    // ---- output --------------------------------------------------------------------------------------------

    private void print(Op op, Mode mode, List<SizeRow> rows) {
        out.printf("%n# %s, %s, %d rank(s): Java | native%n", op.name(), BenchFormat.name(mode), ranks);
        out.printf("# %12s %12s %6s %5s  %s  %s%n", "", "", "", "", center("out-of-place"), center("in-place"));
        String side = String.format(
                Locale.ROOT,
                "%9s %7s %7s %6s %9s %7s %6s",
                "time(us)",
                "algbw",
                "busbw",
                "#wrong",
                "n.time",
                "n.busbw",
                "n.#wr");
        out.printf("# %12s %12s %6s %5s  %s  %s%n", "size(B)", "count", "type", "redop", side, side);
        for (SizeRow r : rows) {
            out.printf(
                    "  %12d %12d %6s %5s  %s  %s%n", r.bytes, r.count, "float", op.redop(), cells(r, 0), cells(r, 1));
        }
    }

    private static String center(String title) {
        int width = 9 + 7 + 7 + 6 + 9 + 7 + 6 + 6;
        int left = (width - title.length()) / 2;
        return " ".repeat(left) + title + " ".repeat(width - left - title.length());
    }

    private static String cells(SizeRow r, int p) {
        Row j = r.java[p];
        Row n = r.nat[p];
        if (j == null) {
            return String.format(Locale.ROOT, "%9s %7s %7s %6s %9s %7s %6s", "-", "-", "-", "-", "-", "-", "-");
        }
        return String.format(Locale.ROOT, "%9.2f %7.2f %7.2f %6d ", j.timeUs(), j.algbw(), j.busbw(), r.javaWrong[p])
                + (n == null
                        ? String.format(Locale.ROOT, "%9s %7s %6s", "-", "-", "-")
                        : String.format(Locale.ROOT, "%9.2f %7.2f %6d", n.timeUs(), n.busbw(), r.nativeWrong[p]));
    }

    private void summarize(Map<String, Map<Long, Row>> java, Map<String, Map<Long, Row>> nat) {
        out.printf("%n# Summary (out of place)%n");
        for (String key : java.keySet()) {
            Map<Long, Row> natRows = nat.getOrDefault(key, Map.of());
            double worst = Double.POSITIVE_INFINITY;
            long at = 0;
            List<Double> overheads = new ArrayList<>();
            List<Double> hostOverheads = new ArrayList<>();
            for (Row j : java.get(key).values()) {
                Row n = natRows.get(j.bytes());
                if (n == null) {
                    continue;
                }
                if (j.bytes() >= 64 * MIB && n.timeUs() / j.timeUs() < worst) {
                    worst = n.timeUs() / j.timeUs();
                    at = j.bytes();
                }
                if (j.bytes() <= 4096) {
                    overheads.add(j.timeUs() - n.timeUs());
                    hostOverheads.add(j.hostUs() - n.hostUs());
                }
            }
            out.printf(
                    "# %-22s min busbw ratio Java/native from 64 MiB: %s; Java - native, median over sizes up to "
                            + "4 KiB: time %s us, host enqueue %s us%n",
                    key.toLowerCase(Locale.ROOT),
                    worst == Double.POSITIVE_INFINITY ? "-" : String.format(Locale.ROOT, "%.3f (at %d B)", worst, at),
                    BenchFormat.median(overheads, "%.2f"),
                    BenchFormat.median(hostOverheads, "%.3f"));
        }
        out.printf("# #wrong in all: %d%n", wrong.get());
    }

    /** Prints to the console and the results file. */
    private static final class Tee extends PrintStream {
        private final PrintStream second;

        Tee(PrintStream first, PrintStream second) {
            super(first, true, StandardCharsets.UTF_8);
            this.second = second;
        }

        @Override
        public void write(byte[] buf, int off, int len) {
            super.write(buf, off, len);
            second.write(buf, off, len);
        }

        @Override
        public void flush() {
            super.flush();
            second.flush();
        }
    }
}
