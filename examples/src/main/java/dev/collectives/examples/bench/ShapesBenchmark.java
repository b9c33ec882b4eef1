package dev.collectives.examples.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.examples.bench.DeviceBenchmark.Mode;
import dev.collectives.examples.bench.DeviceBenchmark.Op;
import dev.collectives.examples.bench.DeviceBenchmark.Row;
import dev.collectives.examples.bench.DeviceBenchmark.Step;
import dev.collectives.examples.bench.DeviceBenchmark.Timer;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphCache;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.PipelineSupport;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What sizes given at call time cost per call: one allreduce of {@code --count} float32 elements (default 2, 8 B,
 * where the call's own cost shows), issued
 * <ul>
 *     <li>eagerly: the plain call, the call with element offsets, and a LOCAL pipeline's constant step and its
 *     step with parameters (offset, n) of the same values, which checks its arguments on every call;</li>
 *     <li>from graphs: a graph launched directly, a {@link GraphCache} launch of a held tuple, and a GRAPH
 *     pipeline's constant step and its cached step with parameters, with one tuple and with 4 in turn;</li>
 *     <li>by the native C baseline ({@code gpu/native_bench.c}, with {@code --native}), eager and from a graph.</li>
 * </ul>
 * Each row is timed by {@link DeviceBenchmark}'s timer (wall time per op and host enqueue time per op, slowest
 * rank, best of 3 rounds) and compared with the row it adds to: dt and dhost are the differences.
 *
 * <pre>
 * java -cp ... dev.collectives.examples.bench.ShapesBenchmark [--backend nccl] [--ranks 1] [--count 2]
 *     [--iters 5000] [--native path/to/native_bench]
 * </pre>
 */
public final class ShapesBenchmark {
    /** Elements of the arena the steps address; the buckets lie in it. */
    static final long ARENA = 1 << 16;
    /** The offset of the measured bucket, and of the 4 buckets taken in turn. */
    private static final long[] OFFSETS = {1024, 4096, 8192, 16384};

    private final Backend backend;
    private final int ranks;
    private final long count;
    private final int iters;
    private final String nativeBinary;
    /** Rows in the order measured; rank 0 records them. */
    private final Map<String, Measured> rows = new LinkedHashMap<>();

    private ShapesBenchmark(Map<String, String> options) {
        this.backend = Backends.get(options.getOrDefault("backend", "nccl"));
        this.ranks = Integer.parseInt(options.getOrDefault("ranks", "1"));
        this.count = Long.parseLong(options.getOrDefault("count", "2"));
        this.iters = Integer.parseInt(options.getOrDefault("iters", "5000"));
        this.nativeBinary = options.get("native");
    }

    private record Measured(String name, String reference, double timeUs, double hostUs) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        new ShapesBenchmark(options).run();
    }

    private void run() throws Exception {
        System.out.printf("# ShapesBenchmark: backend %s, %d rank(s), allreduce of %d x float32 (%d B), sum; %d ops "
                + "per round, best of 3 rounds; time and host enqueue time per op in us; dt, dhost: minus the "
                + "row named in 'vs'%n", backend.name(), ranks, count, count * 4, iters);
        try (LocalCluster cluster = backend.local(ranks)) {
            Timer timer = new Timer(ranks);
            cluster.run(ctx -> new RankRun(ctx, timer).run());
        }
        if (nativeBinary != null) {
            nativeRow("native C call", Mode.NONE);
            nativeRow("native C graph launch", Mode.GRAPH);
        }
        print();
    }

    private void nativeRow(String name, Mode mode) throws Exception {
        long bytes = count * 4;
        Row row = DeviceBenchmark.runNative(nativeBinary, Op.ALLREDUCE, mode, bytes, bytes, ranks, System.out)
                .get(bytes);
        if (row != null) {
            rows.put(name, new Measured(name, null, row.timeUs(), row.hostUs()));
        }
    }

    /** One rank's part: the arenas, then each row in turn, all ranks together. */
    private final class RankRun {
        private final RankContext ctx;
        private final Communicator comm;
        private final Stream stream;
        private final Timer timer;

        RankRun(RankContext ctx, Timer timer) {
            this.ctx = ctx;
            this.comm = ctx.comm();
            this.stream = ctx.stream();
            this.timer = timer;
        }

        void run() throws Exception {
            long offset = OFFSETS[0];
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA);
                 DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA)) {
                try (RegistrationHandle sendRegistered = comm.register(send);
                     RegistrationHandle recvRegistered = comm.register(recv)) {
                    DeviceBuffer sendAt = send.slice(offset, count);
                    DeviceBuffer recvAt = recv.slice(offset, count);
                    DeviceBenchmark.warmUp(stream, s -> comm.allReduce(sendAt, recvAt, count, DataType.FLOAT32,
                            ReduceOp.SUM, s));
                    time("call", null, s -> comm.allReduce(sendAt, recvAt, count, DataType.FLOAT32, ReduceOp.SUM,
                            s));
                    time("call with offsets", "call", s -> comm.allReduce(send, offset, recv, offset, count,
                            DataType.FLOAT32, ReduceOp.SUM, s));
                }
                Graph graph = PipelineSupport.capture(stream, () -> comm.allReduce(send, offset, recv, offset, count,
                        DataType.FLOAT32, ReduceOp.SUM, stream));
                try (GraphExec exec = graph.instantiate()) {
                    time("graph launch", null, exec::launch);
                } finally {
                    graph.close();
                }
                try (GraphCache cache = new GraphCache(comm, stream, "ShapesBenchmark", "bucket", 4,
                        args -> comm.allReduce(send, args[0], recv, args[0], args[1], DataType.FLOAT32, ReduceOp.SUM,
                                stream))) {
                    time("GraphCache.launch, 1 tuple", "graph launch", s -> cache.launch(offset, count));
                    int[] turn = {0};
                    time("GraphCache.launch, 4 tuples", "graph launch",
                            s -> cache.launch(OFFSETS[turn[0]++ & 3], count));
                }
            }
        }

        private void time(String name, String reference, Step step) throws Exception {
            DeviceBenchmark.warmUp(stream, step);
            double[] timeAndHost = timer.time(ctx.rank(), stream, step, iters);
            if (ctx.rank() == 0) {
                rows.put(name, new Measured(name, reference, timeAndHost[0], timeAndHost[1]));
            }
            timer.await();
        }
    }

    private void print() {
        System.out.printf("%-34s %10s %10s | %-28s %8s %8s%n", "# row", "time(us)", "host(us)", "vs", "dt(us)",
                "dhost(us)");
        for (Measured m : rows.values()) {
            Measured ref = m.reference() == null ? null : rows.get(m.reference());
            System.out.printf(Locale.ROOT, "  %-32s %10.3f %10.3f | %-28s %8s %8s%n", m.name(), m.timeUs(),
                    m.hostUs(), ref == null ? "-" : ref.name(), ref == null ? "-" : delta(m.timeUs() - ref.timeUs()),
                    ref == null ? "-" : delta(m.hostUs() - ref.hostUs()));
        }
    }

    private static String delta(double us) {
        return String.format(Locale.ROOT, "%+.3f", us);
    }
}
