package dev.collectives.examples.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Window;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * nccl-tests-style tables (size, count, time, algbw, busbw) of allreduce, allgather and reducescatter on a
 * native backend, for the registration modes of pipelines — NONE (plain buffers), LOCAL (registered once),
 * GRAPH (the op captured once, the graph launched per call) — and symmetric windows, each beside the native C
 * baseline ({@code gpu/native_bench.c}) run in the same process tree with the same sizes, iterations and
 * timing, and the ratio native time / Java time (= Java busbw / native busbw). Then, unless {@code --pipelines
 * off}, the generated pipelines' steps beside both ({@link PipelineBenchmark}).
 *
 * <pre>
 * java -cp ... dev.collectives.examples.bench.DeviceBenchmark --native path/to/native_bench \
 *     [--backend nccl] [--min 8] [--max 2147483648] [--ranks 2] [--ops allreduce,allgather,reducescatter]
 *     [--modes none,local,graph,window] [--pipelines on|off] [--out results.txt]
 * </pre>
 */
public final class DeviceBenchmark {
    private static final int WARMUP = 5;
    private static final int ROUNDS = 3;
    private static final int FIRST_WARMUP = 3000;
    private static final long MIB = 1 << 20;

    private final Map<String, String> options;
    private final int ranks;
    private final long minBytes;
    private final long maxBytes;
    private final PrintStream out;

    private DeviceBenchmark(Map<String, String> options, PrintStream out) {
        this.options = options;
        this.ranks = Integer.parseInt(options.getOrDefault("ranks", "2"));
        this.minBytes = Long.parseLong(options.getOrDefault("min", "8"));
        this.maxBytes = Long.parseLong(options.getOrDefault("max", String.valueOf(2048 * MIB)));
        this.out = out;
    }

    enum Op { ALLREDUCE, ALLGATHER, REDUCESCATTER }

    enum Mode { NONE, LOCAL, GRAPH, WINDOW }

    /** One measured size. */
    record Row(long bytes, long count, double timeUs, double algbw, double busbw, double hostUs) {
    }

    /** Iterations per size; the same rule as native_bench.c. */
    static int iterations(long bytes) {
        return bytes <= 64 * 1024 ? 1000 : bytes <= 64 * MIB ? 100 : 20;
    }

    long elements(Op op, long bytes) {
        return op == Op.ALLREDUCE ? bytes / 4 : bytes / 4 / ranks;
    }

    /** The bytes a size row names: the buffer reduced, or gathered/scattered over all ranks. */
    long totalBytes(Op op, long count) {
        return op == Op.ALLREDUCE ? count * 4 : count * 4 * ranks;
    }

    double busFactor(Op op) {
        return op == Op.ALLREDUCE ? 2.0 * (ranks - 1) / ranks : (double) (ranks - 1) / ranks;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        try (PrintStream file = options.containsKey("out")
                ? new PrintStream(Files.newOutputStream(Path.of(options.get("out"))), true, StandardCharsets.UTF_8)
                : null) {
            PrintStream tee = file == null ? System.out : new Tee(System.out, file);
            new DeviceBenchmark(options, tee).run();
        }
    }

    private void run() throws Exception {
        Backend backend = Backends.get(options.getOrDefault("backend", "nccl"));
        List<Op> ops = parse(Op.class, options.getOrDefault("ops", "allreduce,allgather,reducescatter"));
        List<Mode> modes = parse(Mode.class, options.getOrDefault("modes", "none,local,graph,window"));
        out.printf("# DeviceBenchmark: backend %s, %d ranks, float32/sum, %d..%d bytes; iterations 1000 up to 64 KiB, "
                + "100 up to 64 MiB, 20 above; %d warm-up; best of %d rounds%n", backend.name(), ranks, minBytes, maxBytes, WARMUP,
                ROUNDS);
        out.printf("# time: wall clock per op, slowest rank, best round; ratio = native time / Java time (= busbw ratio)%n");
        Map<String, Map<Long, Row>> java = new LinkedHashMap<>();
        Map<String, Map<Long, Row>> nativeRows = new LinkedHashMap<>();
        try (LocalCluster cluster = backend.local(ranks)) {
            for (Op op : ops) {
                for (Mode mode : modes) {
                    String key = op + "/" + mode;
                    nativeRows.put(key, runNative(op, mode));
                    java.put(key, measure(cluster, op, mode));
                    print(op, mode, java.get(key), nativeRows.get(key));
                }
            }
            if (!"off".equals(options.get("pipelines"))) {
                new PipelineBenchmark(this, out).run(cluster, ranks, modes, java, nativeRows);
            }
        }
        summarize(java, nativeRows);
    }

    private static <E extends Enum<E>> List<E> parse(Class<E> type, String list) {
        List<E> values = new ArrayList<>();
        for (String s : list.split(",")) {
            values.add(Enum.valueOf(type, s.trim().toUpperCase(Locale.ROOT)));
        }
        return values;
    }

    // ---- the native baseline -------------------------------------------------------------------------------

    private Map<Long, Row> runNative(Op op, Mode mode) throws IOException, InterruptedException {
        String binary = options.get("native");
        return binary == null ? new LinkedHashMap<>() : runNative(binary, op, mode, minBytes, maxBytes, ranks, out);
    }

    /** The rows {@code gpu/native_bench.c} prints for {@code op} and {@code mode}; its other lines go to {@code out}. */
    static Map<Long, Row> runNative(String binary, Op op, Mode mode, long minBytes, long maxBytes, int ranks,
                                    PrintStream out) throws IOException, InterruptedException {
        Map<Long, Row> rows = new LinkedHashMap<>();
        Process process = new ProcessBuilder(binary, name(op), name(mode), String.valueOf(minBytes),
                String.valueOf(maxBytes), String.valueOf(ranks)).redirectErrorStream(true).start();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 8 && f[0].equals(name(op))) {
                    rows.put(Long.parseLong(f[2]), new Row(Long.parseLong(f[2]), Long.parseLong(f[3]),
                            Double.parseDouble(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[6]),
                            Double.parseDouble(f[7])));
                } else {
                    out.println("# native: " + line);
                }
            }
        }
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return rows;
    }

    private static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    // ---- the Java measurement ------------------------------------------------------------------------------

    private Map<Long, Row> measure(LocalCluster cluster, Op op, Mode mode) {
        Map<Long, Row> rows = new LinkedHashMap<>();
        Timer timer = new Timer(ranks);
        long sendBytes = op == Op.ALLGATHER ? maxBytes / ranks : maxBytes;
        long recvBytes = op == Op.REDUCESCATTER ? maxBytes / ranks : maxBytes;
        cluster.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            int rank = ctx.rank();
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, sendBytes);
                 DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, recvBytes);
                 Registered registered = Registered.of(comm, mode, send, recv)) {
                DeviceBuffer sendF = send.view(0, DataType.FLOAT32, sendBytes / 4);
                DeviceBuffer recvF = recv.view(0, DataType.FLOAT32, recvBytes / 4);
                warmUp(stream, step(comm, op, sendF, recvF, Math.max(1, elements(op, minBytes))));
                for (long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
                    long count = elements(op, bytes);
                    if (count == 0) {
                        continue;
                    }
                    int iters = iterations(bytes);
                    Step step = step(comm, op, sendF, recvF, count);
                    Graph graph = null;
                    GraphExec exec = null;
                    if (mode == Mode.GRAPH) {
                        // one eager op first: NCCL sets up this size's connections outside the capture
                        step.issue(stream);
                        stream.synchronize();
                        stream.beginCapture();
                        step.issue(stream);
                        graph = stream.endCapture();
                        exec = graph.instantiate();
                        GraphExec replay = exec;
                        step = replay::launch;
                    }
                    Row row = row(op, count, timer.time(rank, stream, step, iters));
                    if (rank == 0) {
                        rows.put(row.bytes(), row);
                    }
                    if (exec != null) {
                        exec.close();
                        graph.close();
                    }
                    timer.await();
                }
            }
        });
        return rows;
    }

    /** Before any timing, as native_bench.c does: the JIT compiles the call path meanwhile. */
    static void warmUp(Stream stream, Step step) {
        for (int i = 0; i < FIRST_WARMUP; i++) {
            step.issue(stream);
        }
        stream.synchronize();
    }

    /** A measured size of {@code op} with {@code count} elements per rank's call, from {@link Timer#time}. */
    Row row(Op op, long count, double[] timeAndHostUs) {
        long total = totalBytes(op, count);
        double algbw = total / timeAndHostUs[0] / 1e3;
        return new Row(total, count, timeAndHostUs[0], algbw, algbw * busFactor(op), timeAndHostUs[1]);
    }

    /** One enqueue of the measured op: a direct call, a graph launch, or a pipeline step. No allocation per call. */
    @FunctionalInterface
    interface Step {
        void issue(Stream stream);
    }

    /**
     * Times ops on all ranks of a cluster together, each rank calling {@link #time} from its thread: {@value
     * #WARMUP} warm-up ops, then {@value #ROUNDS} rounds that start at a barrier; a round's time per op is its
     * slowest rank's wall clock, and the best round counts.
     */
    static final class Timer {
        private final int ranks;
        private final CyclicBarrier barrier;
        private final double[] elapsedUs;
        private final double[] enqueuedUs;

        Timer(int ranks) {
            this.ranks = ranks;
            this.barrier = new CyclicBarrier(ranks);
            this.elapsedUs = new double[ranks];
            this.enqueuedUs = new double[ranks];
        }

        /** {time per op, host enqueue time per op} in µs of the best round; the same on every rank. */
        double[] time(int rank, Stream stream, Step step, int iters) throws Exception {
            for (int i = 0; i < WARMUP; i++) {
                step.issue(stream);
            }
            stream.synchronize();
            double best = Double.POSITIVE_INFINITY;
            double bestHost = 0;
            for (int round = 0; round < ROUNDS; round++) {
                await();
                long start = System.nanoTime();
                for (int i = 0; i < iters; i++) {
                    step.issue(stream);
                }
                enqueuedUs[rank] = (System.nanoTime() - start) / 1e3 / iters;
                stream.synchronize();
                elapsedUs[rank] = (System.nanoTime() - start) / 1e3 / iters;
                await();
                double slowest = 0;
                double host = 0;
                for (int r = 0; r < ranks; r++) {
                    slowest = Math.max(slowest, elapsedUs[r]);
                    host = Math.max(host, enqueuedUs[r]);
                }
                if (slowest < best) {
                    best = slowest;
                    bestHost = host;
                }
                await(); // every rank has read this round's figures before the next round writes them
            }
            return new double[] {best, bestHost};
        }

        void await() throws Exception {
            barrier.await(120, TimeUnit.SECONDS);
        }
    }

    private static Step step(Communicator comm, Op op, DeviceBuffer send, DeviceBuffer recv, long count) {
        switch (op) {
            case ALLREDUCE:
                return s -> comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, s);
            case ALLGATHER:
                return s -> comm.allGather(send, recv, count, DataType.FLOAT32, s);
            default:
                return s -> comm.reduceScatter(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, s);
        }
    }

    /** LOCAL: CommRegister of both buffers; WINDOW: symmetric windows on both; closed before the memory. */
    private static final class Registered implements AutoCloseable {
        private final List<AutoCloseable> handles;

        private Registered(List<AutoCloseable> handles) {
            this.handles = handles;
        }

        static Registered of(Communicator comm, Mode mode, DeviceBuffer send, DeviceBuffer recv) {
            List<AutoCloseable> handles = new ArrayList<>();
            if (mode == Mode.LOCAL) {
                RegistrationHandle s = comm.register(send);
                handles.add(s);
                handles.add(comm.register(recv));
            } else if (mode == Mode.WINDOW) {
                Window s = comm.registerWindow(send, true);
                handles.add(s);
                handles.add(comm.registerWindow(recv, true));
            }
            return new Registered(handles);
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable h : handles) {
                h.close();
            }
        }
    }

    // ---- output --------------------------------------------------------------------------------------------

    private void print(Op op, Mode mode, Map<Long, Row> java, Map<Long, Row> nat) {
        out.printf("%n# %s, %s: Java (%d ranks) | native C baseline | ratio%n", name(op), name(mode), ranks);
        out.printf("# %12s %12s %10s %8s %8s %8s | %10s %8s %8s | %6s %9s %9s%n", "size(B)", "count", "time(us)",
                "algbw", "busbw", "host(us)", "time(us)", "busbw", "host(us)", "ratio", "dt(us)", "dhost(us)");
        for (Row j : java.values()) {
            Row n = nat.get(j.bytes());
            if (n == null) {
                out.printf("  %12d %12d %10.2f %8.2f %8.2f %8.3f | %10s %8s %8s | %6s %9s %9s%n", j.bytes(), j.count(),
                        j.timeUs(), j.algbw(), j.busbw(), j.hostUs(), "-", "-", "-", "-", "-", "-");
            } else {
                out.printf("  %12d %12d %10.2f %8.2f %8.2f %8.3f | %10.2f %8.2f %8.3f | %6.3f %9.2f %9.3f%n",
                        j.bytes(), j.count(), j.timeUs(), j.algbw(), j.busbw(), j.hostUs(), n.timeUs(), n.busbw(),
                        n.hostUs(), n.timeUs() / j.timeUs(), j.timeUs() - n.timeUs(), j.hostUs() - n.hostUs());
            }
        }
    }

    private void summarize(Map<String, Map<Long, Row>> java, Map<String, Map<Long, Row>> nat) {
        out.printf("%n# Summary%n");
        for (String key : java.keySet()) {
            double worst = Double.POSITIVE_INFINITY;
            long at = 0;
            for (Row j : java.get(key).values()) {
                Row n = nat.get(key).get(j.bytes());
                if (n != null && j.bytes() >= 64 * MIB && n.timeUs() / j.timeUs() < worst) {
                    worst = n.timeUs() / j.timeUs();
                    at = j.bytes();
                }
            }
            List<Double> overheads = new ArrayList<>();
            List<Double> hostOverheads = new ArrayList<>();
            for (Row j : java.get(key).values()) {
                Row n = nat.get(key).get(j.bytes());
                if (n != null && j.bytes() <= 4096) {
                    overheads.add(j.timeUs() - n.timeUs());
                    hostOverheads.add(j.hostUs() - n.hostUs());
                }
            }
            overheads.sort(null);
            hostOverheads.sort(null);
            Row small = java.get(key).values().stream().findFirst().orElse(null);
            Row smallNative = small == null ? null : nat.get(key).get(small.bytes());
            out.printf("# %-22s min busbw ratio from 64 MiB: %s; %s B: Java %s us, native %s us; per-op overhead "
                            + "(Java - native), median over sizes up to 4 KiB: %s us, host enqueue %s us%n", key.toLowerCase(Locale.ROOT),
                    worst == Double.POSITIVE_INFINITY ? "-" : String.format(Locale.ROOT, "%.3f (at %d B)", worst, at),
                    small == null ? "-" : small.bytes(), small == null ? "-" : fmt(small.timeUs()),
                    smallNative == null ? "-" : fmt(smallNative.timeUs()),
                    overheads.isEmpty() ? "-" : fmt(overheads.get(overheads.size() / 2)),
                    hostOverheads.isEmpty() ? "-" : String.format(Locale.ROOT, "%.3f",
                            hostOverheads.get(hostOverheads.size() / 2)));
        }
        long gib = 1024 * MIB;
        Row unregistered = java.getOrDefault("ALLGATHER/NONE", Map.of()).get(gib);
        Row registered = java.getOrDefault("ALLGATHER/LOCAL", Map.of()).get(gib);
        if (unregistered != null && registered != null) {
            out.printf("# allgather 1 GiB busbw, registered / unregistered (Java): %.2f / %.2f = %.3f%n",
                    registered.busbw(), unregistered.busbw(), registered.busbw() / unregistered.busbw());
        }
        Row nUnregistered = nat.getOrDefault("ALLGATHER/NONE", Map.of()).get(gib);
        Row nRegistered = nat.getOrDefault("ALLGATHER/LOCAL", Map.of()).get(gib);
        if (nUnregistered != null && nRegistered != null) {
            out.printf("# allgather 1 GiB busbw, registered / unregistered (native): %.2f / %.2f = %.3f%n",
                    nRegistered.busbw(), nUnregistered.busbw(), nRegistered.busbw() / nUnregistered.busbw());
        }
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
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
