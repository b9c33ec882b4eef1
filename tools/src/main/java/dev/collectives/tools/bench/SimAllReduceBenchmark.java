package dev.collectives.tools.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.HelpAndVersion;
import dev.collectives.examples.RanksOption;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Stream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.bytedeco.javacpp.Pointer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * nccl-tests-style figures for the embedded backend: allreduce (float32, sum, out of place) at each rank count,
 * with the native kernels and with the pure-Java path ({@link Kernels#useNativeKernels}) side by side, their
 * trials alternating so that load on the machine falls on both; and single-thread memcpy bandwidth measured in the
 * same run, before each rank count, for comparison (of 64 MiB, or of the largest size when that is less). Each
 * figure is the best of {@code --trials} trials, each the mean over several back-to-back operations. busbw =
 * algbw × 2(n−1)/n, as nccl-tests reports it. With {@code --kernels}, the reductions alone are timed too
 * ({@link SimKernelTimer}), so that each allreduce's time divides into its kernel and the rest of the call. After
 * {@code --runs} runs the summary gives, per rank count, the 64 MiB figure of every run and every size where the
 * pure-Java path was faster in some run, with its ratio in each.
 */
@Command(
        name = "sim-allreduce",
        versionProvider = BuildVersion.class,
        sortOptions = false,
        description =
                "Times the sim backend's allreduce, its ranks threads of this process, with the native kernels and "
                        + "in pure Java, beside single-thread memcpy. The default run (1 KiB to 256 MiB at 2 and 4 "
                        + "ranks, 5 trials) takes minutes: about 7 on a busy 2-core machine; a smaller --max or fewer "
                        + "--trials shorten it.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:measured", "1:the run failed", "2:a bad command line"})
public final class SimAllReduceBenchmark implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    private static final double GB = 1e9;
    private static final long MIB = 1 << 20;

    @Option(
            names = "--min",
            paramLabel = "BYTES",
            defaultValue = "1024",
            description = "smallest size in bytes; default: ${DEFAULT-VALUE}")
    long minBytes;

    @Option(
            names = "--max",
            paramLabel = "BYTES",
            defaultValue = "268435456",
            description = "largest size in bytes; default: ${DEFAULT-VALUE}")
    long maxBytes;

    @Mixin
    RanksOption rankOption = new RanksOption("2,4");

    List<Integer> rankCounts;

    @Option(
            names = "--trials",
            paramLabel = "N",
            defaultValue = "5",
            description = "trials per size and path; default: ${DEFAULT-VALUE}")
    int trials;

    @Option(
            names = "--runs",
            paramLabel = "N",
            defaultValue = "1",
            description = "back-to-back runs of the whole sweep; the summary gives each run's figures; "
                    + "default: ${DEFAULT-VALUE}")
    int runs;

    @Option(
            names = "--java",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "also time the pure-Java path; default: on")
    boolean java;

    @Option(
            names = "--kernels",
            description = "also time the reductions alone, native (and Java, with --java), per rank's share")
    boolean kernels;

    @Option(names = "--csv", paramLabel = "FILE", description = "also write the rows as CSV")
    Path csv;

    @Spec
    CommandSpec spec;

    /** One sweep's figures: busbw/memcpy at 64 MiB (NaN when not run) and java/native time ratio per size. */
    private record Sweep(int run, int ranks, double at64, Map<Long, Double> ratios) {}

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new SimAllReduceBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<Long> sizes = BenchCommandLine.doublingSizes(spec, minBytes, maxBytes);
        rankCounts = rankOption.counts();
        BenchCommandLine.positive(spec, "--trials", trials);
        BenchCommandLine.positive(spec, "--runs", runs);
        long memcpyBytes = Math.min(64 * MIB, sizes.get(sizes.size() - 1));
        Results results = new Results();
        List<Sweep> sweeps = new ArrayList<>();
        if (kernels) {
            System.out.println("# rest(us): time(us) less kernel(us), each the best of its own trials; '-' where the"
                    + " kernel alone took longer, as it can on a loaded machine");
        }
        try {
            for (int run = 1; run <= runs; run++) {
                for (int ranks : rankCounts) {
                    double memcpy = memcpyBandwidth(memcpyBytes);
                    System.out.printf(
                            Locale.ROOT,
                            "#%n# run %d: sim allreduce, float32 sum, out of place, %d ranks; "
                                    + "single-thread memcpy of %d B just before: %.2f GB/s%n",
                            run,
                            ranks,
                            memcpyBytes,
                            memcpy);
                    System.out.printf(
                            Locale.ROOT,
                            "# %12s %12s | %10s %10s %7s | %10s %10s %7s | %7s%s%n",
                            "size(B)",
                            "count",
                            "time(us)",
                            "busbw",
                            "/memcpy",
                            "java(us)",
                            "busbw",
                            "/memcpy",
                            "java/nat",
                            kernels ? fmt(" | %10s %10s %10s", "kernel(us)", "jkernel", "rest(us)") : "");
                    sweeps.add(sweep(run, ranks, sizes, memcpy, results));
                }
            }
        } finally {
            Kernels.useNativeKernels(true);
        }
        summarize(sweeps);
        if (csv != null) {
            results.writeCsv(csv);
        }
        return BenchCommandLine.PASSED;
    }

    /**
     * The call's time beyond its kernel's, in microseconds; "-" where the kernel, timed apart and best of its own
     * trials, took longer than the whole call: on a loaded machine the two cannot be subtracted.
     */
    static String rest(double callSeconds, double kernelSeconds) {
        double rest = callSeconds - kernelSeconds;
        return rest < 0 ? "-" : fmt("%.1f", rest * 1e6);
    }

    private Sweep sweep(int run, int ranks, List<Long> sizes, double memcpy, Results results) {
        Map<Long, Double> ratios = new LinkedHashMap<>();
        double at64 = Double.NaN;
        try (LocalCluster cluster = Backends.get("sim").local(ranks)) {
            for (long bytes : sizes) {
                int iterations = iterations(bytes);
                double[] seconds = time(cluster, ranks, bytes, iterations);
                double busbw = busbw(bytes, seconds[0], ranks);
                double javaBusbw = java ? busbw(bytes, seconds[1], ranks) : Double.NaN;
                double ratio = seconds[1] / seconds[0];
                double[] kernel =
                        kernels ? kernelSeconds(ranks, bytes, iterations) : new double[] {Double.NaN, Double.NaN};
                System.out.printf(
                        Locale.ROOT,
                        "  %12d %12d | %10.1f %10.2f %7.3f | %10s %10s %7s | %7s%s%n",
                        bytes,
                        bytes / 4,
                        seconds[0] * 1e6,
                        busbw,
                        busbw / memcpy,
                        java ? fmt("%.1f", seconds[1] * 1e6) : "-",
                        java ? fmt("%.2f", javaBusbw) : "-",
                        java ? fmt("%.3f", javaBusbw / memcpy) : "-",
                        java ? fmt("%.3f", ratio) : "-",
                        kernels
                                ? fmt(
                                        " | %10.1f %10s %10s",
                                        kernel[0] * 1e6,
                                        java ? fmt("%.1f", kernel[1] * 1e6) : "-",
                                        rest(seconds[0], kernel[0]))
                                : "");
                results.add(
                        "run",
                        run,
                        "ranks",
                        ranks,
                        "bytes",
                        bytes,
                        "native_us",
                        seconds[0] * 1e6,
                        "native_busbw",
                        busbw,
                        "java_us",
                        seconds[1] * 1e6,
                        "java_busbw",
                        javaBusbw,
                        "memcpy_gbps",
                        memcpy,
                        "native_kernel_us",
                        kernel[0] * 1e6,
                        "java_kernel_us",
                        kernel[1] * 1e6);
                if (java) {
                    ratios.put(bytes, ratio);
                }
                if (bytes == 64 * MIB) {
                    at64 = busbw / memcpy;
                }
            }
        }
        List<String> javaFaster = new ArrayList<>();
        ratios.forEach((bytes, ratio) -> {
            if (ratio < 1) {
                javaFaster.add(fmt("%d B (%.3f)", bytes, ratio));
            }
        });
        System.out.printf(
                Locale.ROOT,
                "# run %d, %d ranks: 64 MiB busbw/memcpy %s; java faster at: %s%n",
                run,
                ranks,
                Double.isNaN(at64) ? "-" : fmt("%.3f", at64),
                java ? (javaFaster.isEmpty() ? "none" : String.join(", ", javaFaster)) : "-");
        return new Sweep(run, ranks, at64, ratios);
    }

    /**
     * Per rank count: the 64 MiB busbw/memcpy of every run, and every size where the pure-Java path was faster in
     * at least one run, with the java/native time ratio of each run (below 1: Java faster).
     */
    private void summarize(List<Sweep> sweeps) {
        System.out.printf(
                "#%n# Summary over %d run(s): busbw / memcpy of the native kernels at 64 MiB in each run; "
                        + "sizes where the pure-Java path was faster in some run, with the time ratio java/native of every "
                        + "run (< 1: Java faster)%n",
                runs);
        for (int ranks : rankCounts) {
            List<Sweep> mine = sweeps.stream().filter(s -> s.ranks() == ranks).toList();
            String at64 = mine.stream()
                    .filter(s -> !Double.isNaN(s.at64()))
                    .map(s -> fmt("%.3f", s.at64()))
                    .collect(Collectors.joining(" "));
            List<String> javaFaster = new ArrayList<>();
            for (long bytes : mine.get(0).ratios().keySet()) {
                List<Double> perRun =
                        mine.stream().map(s -> s.ratios().get(bytes)).toList();
                long faster = perRun.stream().filter(r -> r < 1).count();
                if (faster > 0) {
                    javaFaster.add(fmt(
                            "%d B in %d of %d (%s)",
                            bytes,
                            faster,
                            perRun.size(),
                            perRun.stream().map(r -> fmt("%.3f", r)).collect(Collectors.joining(" "))));
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "# %d ranks: 64 MiB busbw/memcpy %s; java faster at: %s%n",
                    ranks,
                    at64.isEmpty() ? "-" : at64,
                    java ? (javaFaster.isEmpty() ? "none, in any run" : String.join("; ", javaFaster)) : "-");
        }
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private static double busbw(long bytes, double seconds, int ranks) {
        return bytes / seconds / GB * 2 * (ranks - 1) / ranks;
    }

    /** Ops per trial: 512 MiB reduced in all, from 10 to 200 ops. */
    private static int iterations(long bytes) {
        return (int) Math.max(10, Math.min(200, (512L << 20) / bytes));
    }

    /**
     * {native, java} seconds per op: the best of the trials, each the slowest rank's mean; the paths alternate, on
     * the same buffers. The send buffers hold data: memory that is only ever read would map the operating system's
     * one zero page, and every read would then hit the cache.
     */
    private double[] time(LocalCluster cluster, int ranks, long bytes, int iterations) {
        long count = bytes / 4;
        DeviceBuffer[] sends = new DeviceBuffer[ranks];
        DeviceBuffer[] recvs = new DeviceBuffer[ranks];
        ByteBuffer data = filled(bytes);
        cluster.run(ctx -> {
            sends[ctx.rank()] = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, count);
            recvs[ctx.rank()] = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, count);
            sends[ctx.rank()].copyFromHost(data);
        });
        double[][][] trialSeconds = new double[2][trials][ranks];
        int paths = java ? 2 : 1;
        try {
            for (int trial = 0; trial < trials; trial++) {
                for (int k = 0; k < paths; k++) {
                    int path = (trial + k) % paths;
                    int t = trial;
                    Kernels.useNativeKernels(path == 0);
                    cluster.run(ctx -> {
                        Communicator comm = ctx.comm();
                        Stream stream = ctx.stream();
                        DeviceBuffer send = sends[ctx.rank()];
                        DeviceBuffer recv = recvs[ctx.rank()];
                        for (int i = 0; i < 2; i++) { // warm up: touch the pages, wake the workers
                            comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream);
                        }
                        stream.synchronize();
                        long t0 = System.nanoTime();
                        for (int i = 0; i < iterations; i++) {
                            comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream);
                        }
                        stream.synchronize();
                        trialSeconds[path][t][ctx.rank()] = (System.nanoTime() - t0) / 1e9 / iterations;
                    });
                }
            }
        } finally {
            Kernels.useNativeKernels(true);
            cluster.run(ctx -> {
                recvs[ctx.rank()].close();
                sends[ctx.rank()].close();
            });
        }
        return new double[] {best(trialSeconds[0]), java ? best(trialSeconds[1]) : Double.NaN};
    }

    /** {@code bytes} of float32 ones, in native order. */
    private static ByteBuffer filled(long bytes) {
        ByteBuffer data = ByteBuffer.allocateDirect(Math.toIntExact(bytes)).order(ByteOrder.nativeOrder());
        FloatBuffer floats = data.asFloatBuffer();
        while (floats.hasRemaining()) {
            floats.put(1f);
        }
        return data;
    }

    /**
     * {native, java} seconds per reduction alone, per rank's share: the best of the trials; the paths alternate.
     * Java's is NaN unless {@code --java}.
     */
    private double[] kernelSeconds(int ranks, long bytes, int iterations) {
        double[] best = {Double.MAX_VALUE, java ? Double.MAX_VALUE : Double.NaN};
        int paths = java ? 2 : 1;
        try (SimKernelTimer timer = new SimKernelTimer(ranks, bytes)) {
            for (int trial = 0; trial < trials; trial++) {
                for (int k = 0; k < paths; k++) {
                    int path = (trial + k) % paths;
                    best[path] = Math.min(best[path], timer.seconds(path == 0, iterations));
                }
            }
        } finally {
            Kernels.useNativeKernels(true);
        }
        return best;
    }

    private static double best(double[][] trials) {
        double seconds = Double.MAX_VALUE;
        for (double[] trial : trials) {
            double slowestRank = 0;
            for (double s : trial) {
                slowestRank = Math.max(slowestRank, s);
            }
            seconds = Math.min(seconds, slowestRank);
        }
        return seconds;
    }

    /** Bytes copied per second by one thread: the best of 5 trials of 10 copies. */
    static double memcpyBandwidth(long bytes) {
        Pointer src = Pointer.calloc(bytes, 1);
        Pointer dst = Pointer.calloc(bytes, 1);
        try {
            Pointer.memset(src, 1, bytes); // data in the source, not the zero page (see time)
            Kernels.copy(src.address(), dst.address(), bytes); // touch the pages
            double best = Double.MAX_VALUE;
            for (int trial = 0; trial < 5; trial++) {
                int copies = 10;
                long t0 = System.nanoTime();
                for (int i = 0; i < copies; i++) {
                    Kernels.copy(src.address(), dst.address(), bytes);
                }
                best = Math.min(best, (System.nanoTime() - t0) / 1e9 / copies);
            }
            return bytes / best / GB;
        } finally {
            Pointer.free(src);
            Pointer.free(dst);
        }
    }
}
