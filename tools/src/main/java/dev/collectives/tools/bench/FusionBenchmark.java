package dev.collectives.tools.bench;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.ClusterOptions;
import dev.collectives.examples.HelpAndVersion;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What the processor's plan of a step buys. Per step, k allreduces (sum) of n float32 elements at adjacent offsets of
 * one block, {@code in} into {@code out}, issued
 * <ul>
 *     <li>by hand: one {@link Communicator#allReduce} per op, on slices made beforehand ("java one by one");</li>
 *     <li>by a declared pipeline ({@code Fusion<k>Eager}, {@code Fusion<k>Graph}) as the processor plans the step,
 *     one fused call ("pipeline planned"), and the same ops kept in written order with {@code @WrittenOrder}
 *     ("pipeline as written");</li>
 *     <li>with {@code --native-bench}, by the C program of {@code gpu/native_bench.c}: one by one and fused.</li>
 * </ul>
 * Eagerly (a NONE pipeline) and from graphs (a GRAPH pipeline; the hand-written ops captured into one graph). Each
 * row is timed by the benchmarks' {@link Timer}: time per step, the slowest rank, the best of {@code --rounds}.
 * Before that, each cell checks that the planned step and the step as written leave in {@code out} every bit the
 * hand-written calls leave there (#wrong counts the elements that differ, over all ranks). Figures from {@code sim},
 * a simulation inside this JVM, are not performance figures, and the output says so.
 */
@Command(
        name = "fusion",
        versionProvider = BuildVersion.class,
        sortOptions = false,
        description = {
            "Times k allreduces of n floats at adjacent offsets of one block per step: by hand with "
                    + "Communicator calls, as a declared pipeline planned (one fused call) and as written, and with "
                    + "--native-bench from C one by one and fused; eager and in a graph."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:measured, and every planned step wrote what the calls by hand write",
            "1:a step wrote something else, or the run failed",
            "2:a bad command line, or an unavailable backend"
        })
public final class FusionBenchmark implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    static final String BY_HAND = "java one by one";
    static final String PLANNED = "pipeline planned";
    static final String WRITTEN = "pipeline as written";
    static final String NATIVE_ONE_BY_ONE = "native one by one";
    static final String NATIVE_FUSED = "native fused";
    /** The rows of a cell, in table order. */
    private static final List<String> SIDES = List.of(BY_HAND, PLANNED, WRITTEN, NATIVE_ONE_BY_ONE, NATIVE_FUSED);
    /** The cell the summary states the aims for, and its aims. */
    private static final int AIM_K = 16;

    private static final long AIM_N = 256;
    private static final double EAGER_AIM = 10;
    private static final double GRAPH_AIM = 5;
    private static final double NATIVE_AIM_PERCENT = 10;

    /** How a step is issued: its calls on the stream, or one graph launch. */
    enum Launch {
        EAGER,
        GRAPH
    }

    /** A bound pipeline of k ops: its buffers and its two steps. */
    private record Bound(Pipeline pipeline, DeviceBuffer in, DeviceBuffer out, Runnable planned, Runnable written)
            implements AutoCloseable {
        @Override
        public void close() {
            pipeline.close();
        }
    }

    @FunctionalInterface
    private interface Binder {
        Bound bind(Communicator comm, Stream stream, long n);
    }

    /** The declared pipelines, by "k launch". */
    private static final Map<String, Binder> PIPELINES = Map.ofEntries(
            Map.entry("1 EAGER", (c, s, n) -> {
                var p = CollectiveFusion1Eager.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }),
            Map.entry("1 GRAPH", (c, s, n) -> {
                var p = CollectiveFusion1Graph.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }),
            Map.entry("4 EAGER", (c, s, n) -> {
                var p = CollectiveFusion4Eager.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }),
            Map.entry("4 GRAPH", (c, s, n) -> {
                var p = CollectiveFusion4Graph.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }),
            Map.entry("16 EAGER", (c, s, n) -> {
                var p = CollectiveFusion16Eager.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }),
            Map.entry("16 GRAPH", (c, s, n) -> {
                var p = CollectiveFusion16Graph.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }),
            Map.entry("64 EAGER", (c, s, n) -> {
                var p = CollectiveFusion64Eager.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }),
            Map.entry("64 GRAPH", (c, s, n) -> {
                var p = CollectiveFusion64Graph.binder(c, s).n(n).bind();
                return new Bound(p, p.in(), p.out(), p::planned, p::written);
            }));

    @Mixin
    ClusterOptions cluster = new ClusterOptions("nccl", "1");

    int ranks;

    @Option(
            names = "--ks",
            paramLabel = "K",
            split = ",",
            defaultValue = "1,4,16,64",
            description = "ops per step, comma-separated, of 1, 4, 16 and 64; default: ${DEFAULT-VALUE}")
    List<Integer> ks;

    @Option(
            names = "--ns",
            paramLabel = "N",
            split = ",",
            defaultValue = "256,4096,65536",
            description = "elements per op, comma-separated; default: ${DEFAULT-VALUE}")
    List<Long> ns;

    @Option(
            names = "--modes",
            paramLabel = "MODE",
            split = ",",
            defaultValue = "eager,graph",
            description = "how steps are issued, comma-separated: ${COMPLETION-CANDIDATES}; default: ${DEFAULT-VALUE}")
    List<Launch> launches;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "3",
            description = "timed rounds per row; the best counts; default: ${DEFAULT-VALUE}")
    int rounds;

    @Option(
            names = "--iters",
            paramLabel = "N",
            defaultValue = "0",
            description = "steps per round; 0: by the bytes of a step, as "
                    + "the device benchmark sizes its rounds; default: ${DEFAULT-VALUE}")
    int iters;

    @Option(
            names = "--native-bench",
            paramLabel = "PROGRAM",
            description =
                    "gpu/native_bench.c built for this "
                            + "machine: its rows of the same steps in C, one by one and fused, join the table (native backends)")
    Path nativeBench;

    @Mixin
    ResultFiles files = new ResultFiles();

    @Option(
            names = "--plot",
            paramLabel = "FILE",
            description = "also draw time per step against k, a line per "
                    + "mode and side, for the first of --ns, as a PNG (needs the java.desktop module)")
    Path plot;

    @Spec
    CommandSpec spec;

    private Backend backend;
    /** Time per step and host time per step in us, by "launch k n side"; rank 0 records them. */
    private final Map<String, double[]> timed = new LinkedHashMap<>();
    /** Elements of {@code out} that differ from the calls by hand, over all ranks, by "launch k n side". */
    private final Map<String, Long> wrong = new LinkedHashMap<>();

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new FusionBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        backend = cluster.backend().get();
        ranks = cluster.ranks().count();
        BenchCommandLine.positive(spec, "--rounds", rounds);
        for (int k : ks) {
            if (!PIPELINES.containsKey(k + " EAGER")) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--ks: pipelines are declared for 1, 4, 16 and 64 " + "ops per step, not " + k);
            }
        }
        if (ns.stream().anyMatch(n -> n < 1 || n > Integer.MAX_VALUE / 64)) {
            throw new ParameterException(
                    spec.commandLine(), "--ns needs whole numbers from 1 to " + Integer.MAX_VALUE / 64 + ", not " + ns);
        }
        if (nativeBench != null && backend.name().equals("sim")) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--native-bench: the C program runs on a GPU, beside " + "a native backend (nccl), not beside sim");
        }
        if (nativeBench != null) {
            runNative();
        }
        try (LocalCluster cluster = backend.local(ranks)) {
            Timer timer = new Timer(ranks);
            cluster.run(ctx -> {
                for (Launch launch : launches) {
                    for (int k : ks) {
                        for (long n : ns) {
                            cell(ctx, timer, launch, k, n);
                        }
                    }
                }
            });
        }
        Results results = print();
        files.write(results);
        if (plot != null) {
            FusionChart.write(results, ns.get(0), backend.name() + ", " + ranks + " rank(s)", plot);
        }
        return wrong.values().stream().allMatch(w -> w == 0) ? BenchCommandLine.PASSED : BenchCommandLine.FAILED;
    }

    private static String key(Launch launch, int k, long n, String side) {
        return launch + " " + k + " " + n + " " + side;
    }

    private int steps(int k, long n) {
        return iters > 0 ? iters : Timer.iterations(4L * k * n);
    }

    /** One (launch, k, n) on every rank: the check, then each Java row in turn. */
    private void cell(RankContext ctx, Timer timer, Launch launch, int k, long n) throws Exception {
        Communicator comm = ctx.comm();
        Stream stream = ctx.stream();
        try (Bound p = PIPELINES.get(k + " " + launch).bind(comm, stream, n)) {
            DeviceBuffer[] sends = new DeviceBuffer[k];
            DeviceBuffer[] recvs = new DeviceBuffer[k];
            for (int i = 0; i < k; i++) {
                sends[i] = p.in().slice(i * n, n);
                recvs[i] = p.out().slice(i * n, n);
            }
            Step byHand = s -> {
                for (int i = 0; i < k; i++) {
                    comm.allReduce(sends[i], recvs[i], n, DataType.FLOAT32, ReduceOp.SUM, s);
                }
            };
            long[] differ = timer.sum(
                    ctx.rank(), differing(ctx, p, byHand, p.planned()), differing(ctx, p, byHand, p.written()));
            if (ctx.rank() == 0) {
                wrong.put(key(launch, k, n, PLANNED), differ[0]);
                wrong.put(key(launch, k, n, WRITTEN), differ[1]);
            }
            if (launch == Launch.EAGER) {
                time(ctx, timer, key(launch, k, n, BY_HAND), byHand, steps(k, n));
            } else {
                stream.beginCapture();
                byHand.issue(stream);
                try (Graph graph = stream.endCapture();
                        GraphExec exec = graph.instantiate()) {
                    time(ctx, timer, key(launch, k, n, BY_HAND), exec::launch, steps(k, n));
                }
            }
            time(ctx, timer, key(launch, k, n, PLANNED), s -> p.planned().run(), steps(k, n));
            time(ctx, timer, key(launch, k, n, WRITTEN), s -> p.written().run(), steps(k, n));
        }
    }

    /**
     * The elements of {@code out} that {@code step} leaves other than the calls by hand do, from the same
     * {@code in} (rank-dependent values) and {@code out} (zero) on this rank.
     */
    private static long differing(RankContext ctx, Bound p, Step byHand, Runnable step) {
        int elements = (int) p.out().count();
        float[] values = new float[(int) p.in().count()];
        for (int i = 0; i < values.length; i++) {
            values[i] = (ctx.rank() + 1) * 0.5f + (i % 1000) / 8f;
        }
        p.in().copyFromHost(values);
        p.out().copyFromHost(new float[elements]);
        byHand.issue(ctx.stream());
        ctx.stream().synchronize();
        float[] expected = new float[elements];
        p.out().copyToHost(expected);
        p.out().copyFromHost(new float[elements]);
        step.run();
        ctx.stream().synchronize();
        float[] got = new float[elements];
        p.out().copyToHost(got);
        long differ = 0;
        for (int i = 0; i < elements; i++) {
            differ += Float.floatToRawIntBits(got[i]) == Float.floatToRawIntBits(expected[i]) ? 0 : 1;
        }
        return differ;
    }

    private void time(RankContext ctx, Timer timer, String key, Step step, int steps) throws Exception {
        Batch batch = step.batch();
        batch.issue(ctx.stream(), steps); // the JIT compiles this row's path before it is timed
        ctx.stream().synchronize();
        double[] timeAndHost = timer.time(ctx.rank(), ctx.stream(), batch, steps, rounds);
        if (ctx.rank() == 0) {
            timed.put(key, timeAndHost);
        }
        timer.await();
    }

    /** Runs the C program once for every cell, before any rank of this process holds a GPU's stream. */
    private void runNative() throws IOException, InterruptedException {
        String list = ns.stream().map(String::valueOf).collect(Collectors.joining(","));
        Process process = new ProcessBuilder(
                        nativeBench.toString(),
                        "fusion",
                        String.valueOf(ranks),
                        ks.stream().map(String::valueOf).collect(Collectors.joining(",")),
                        list)
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException(nativeBench + " fusion failed: " + output.strip());
        }
        for (String line : output.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 7 && f[0].equals("fusion")) {
                timed.put(
                        key(
                                Launch.valueOf(f[1].toUpperCase(Locale.ROOT)),
                                Integer.parseInt(f[2]),
                                Long.parseLong(f[3]),
                                f[4].equals("fused") ? NATIVE_FUSED : NATIVE_ONE_BY_ONE),
                        new double[] {Double.parseDouble(f[5]), Double.parseDouble(f[6])});
            }
        }
    }

    /** The table, the summary against the aims, and the rows for machines. */
    private Results print() {
        boolean simulated = backend.name().equals("sim");
        System.out.printf(
                "# FusionBenchmark: backend %s, %d rank(s); per step, k allreduces (sum) of n float32 at "
                        + "adjacent offsets of one block; time per step in us, slowest rank, best of %d rounds%n",
                backend.name(), ranks, rounds);
        if (simulated) {
            System.out.println("# sim: a simulation inside this JVM; these figures are not performance figures");
        }
        System.out.printf(
                "# %-6s %3s %7s %9s | %10s %10s %10s %10s %10s | %7s %8s %9s%n",
                "mode",
                "k",
                "n",
                "bytes",
                "java 1by1",
                "planned",
                "written",
                "nat 1by1",
                "nat fused",
                "#wrong",
                "speedup",
                "vs native");
        Results results = new Results();
        for (Launch launch : launches) {
            for (int k : ks) {
                for (long n : ns) {
                    StringBuilder line = new StringBuilder(String.format(
                            Locale.ROOT, "  %-6s %3d %7d %9d |", BenchFormat.name(launch), k, n, 4L * k * n));
                    for (String side : SIDES) {
                        double[] t = timed.get(key(launch, k, n, side));
                        line.append(
                                t == null
                                        ? String.format(Locale.ROOT, " %10s", "-")
                                        : String.format(Locale.ROOT, " %10.2f", t[0]));
                        if (t != null) {
                            Long differ = wrong.get(key(launch, k, n, side));
                            results.add(
                                    "backend",
                                    backend.name(),
                                    "mode",
                                    BenchFormat.name(launch),
                                    "ranks",
                                    ranks,
                                    "k",
                                    k,
                                    "n",
                                    n,
                                    "bytes",
                                    4L * k * n,
                                    "impl",
                                    side,
                                    "time_us",
                                    t[0],
                                    "host_us",
                                    t[1],
                                    "wrong",
                                    side.equals(BY_HAND) ? 0.0 : differ == null ? Double.NaN : (double) differ);
                        }
                    }
                    long differ = wrong.getOrDefault(key(launch, k, n, PLANNED), 0L)
                            + wrong.getOrDefault(key(launch, k, n, WRITTEN), 0L);
                    line.append(String.format(
                            Locale.ROOT, " | %7d %8s %9s", differ, speedup(launch, k, n), againstNative(launch, k, n)));
                    System.out.println(line);
                }
            }
        }
        System.out.printf("# speedup: java one by one / pipeline planned; vs native: pipeline planned against native "
                + "fused; #wrong: elements of out, planned and as written, that differ from the calls by hand%n");
        if (!ks.contains(AIM_K) || !ns.contains(AIM_N)) {
            System.out.printf(
                    "# the aims are stated for k = %d, n = %d, which this run did not measure (add them to --ks and"
                            + " --ns)%n",
                    AIM_K, AIM_N);
            return results;
        }
        System.out.printf(
                "# k = %d, n = %d: speedup eager %s (aim >= %.0fx), graph %s (aim >= %.0fx); against "
                        + "native fused: eager %s, graph %s (aim within %.0f %%)%s%n",
                AIM_K,
                AIM_N,
                speedup(Launch.EAGER, AIM_K, AIM_N),
                EAGER_AIM,
                speedup(Launch.GRAPH, AIM_K, AIM_N),
                GRAPH_AIM,
                againstNative(Launch.EAGER, AIM_K, AIM_N),
                againstNative(Launch.GRAPH, AIM_K, AIM_N),
                NATIVE_AIM_PERCENT,
                simulated ? " (sim: not performance figures)" : "");
        return results;
    }

    private String speedup(Launch launch, int k, long n) {
        double[] byHand = timed.get(key(launch, k, n, BY_HAND));
        double[] planned = timed.get(key(launch, k, n, PLANNED));
        return byHand == null || planned == null ? "-" : String.format(Locale.ROOT, "%.1fx", byHand[0] / planned[0]);
    }

    private String againstNative(Launch launch, int k, long n) {
        double[] planned = timed.get(key(launch, k, n, PLANNED));
        double[] fused = timed.get(key(launch, k, n, NATIVE_FUSED));
        return planned == null || fused == null
                ? "-"
                : String.format(Locale.ROOT, "%+.1f%%", (planned[0] / fused[0] - 1) * 100);
    }
}
