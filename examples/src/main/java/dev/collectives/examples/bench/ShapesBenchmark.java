package dev.collectives.examples.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.NativeBaseline;
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
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What sizes given at call time cost per call: one allreduce of {@code --count} float32 elements (default 2, 8 B,
 * where the call's own cost shows), issued
 * <ul>
 *     <li>eagerly: the plain call, the call with element offsets, and a LOCAL pipeline's constant step and its
 *     step with parameters (offset, n) of the same values, which checks its arguments on every call;</li>
 *     <li>from graphs: a graph launched directly, a {@link GraphCache} launch of a held tuple, and a GRAPH
 *     pipeline's constant step and its cached step with parameters, with one tuple and with 4 in turn;</li>
 *     <li>by the native baseline on a native backend: the same call and graph launch from a C loop in this
 *     process ({@link NativeBaseline}).</li>
 * </ul>
 * Each row is timed by {@link DeviceBenchmark}'s timer (wall time per op and host enqueue time per op, slowest
 * rank, best of 3 rounds) and compared with the row it adds to: dt and dhost are the differences.
 *
 * <pre>
 * java -cp ... dev.collectives.examples.bench.ShapesBenchmark [--backend nccl] [--ranks 1] [--count 2]
 *     [--iters 5000]
 * </pre>
 */
@Command(name = "shapes", mixinStandardHelpOptions = true,
        description = "Per-call cost of sizes given at call time: offsets, checked step parameters, cached graphs.")
public final class ShapesBenchmark implements Callable<Integer> {
    /** Elements of the arena the steps address; the buckets lie in it. */
    static final long ARENA = 1 << 16;
    /** The offset of the measured bucket, and of the 4 buckets taken in turn. */
    private static final long[] OFFSETS = {1024, 4096, 8192, 16384};

    @Option(names = "--backend", defaultValue = "${env:COLLECTIVES_BACKEND:-nccl}",
            description = "Backend: nccl, mccl or sim (default: $COLLECTIVES_BACKEND, else ${DEFAULT-VALUE}).")
    String backendName;

    @Option(names = "--ranks", defaultValue = "1", description = "Ranks (default ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--count", defaultValue = "2", description = "Float32 elements per allreduce (default ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--iters", defaultValue = "5000", description = "Ops per round (default ${DEFAULT-VALUE}).")
    int iters;

    private Backend backend;
    /** Rows in the order measured; rank 0 records them. */
    private final Map<String, Measured> rows = new LinkedHashMap<>();

    private record Measured(String name, String reference, double timeUs, double hostUs) {
    }

    public static void main(String[] args) {
        System.exit(DeviceBenchmark.commandLine(new ShapesBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        backend = Backends.get(backendName);
        System.out.printf("# ShapesBenchmark: backend %s, %d rank(s), allreduce of %d x float32 (%d B), sum; %d ops "
                + "per round, best of 3 rounds; time and host enqueue time per op in us; dt, dhost: minus the "
                + "row named in 'vs'%n", backend.name(), ranks, count, count * 4, iters);
        try (LocalCluster cluster = backend.local(ranks)) {
            Timer timer = new Timer(ranks);
            cluster.run(ctx -> new RankRun(ctx, timer).run());
        }
        print();
        return 0;
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
                    if (NativeBaseline.supports(comm)) {
                        time("native C call", null, (s, n) -> NativeBaseline.allReduce(comm, sendAt, recvAt, count,
                                DataType.FLOAT32, ReduceOp.SUM, s, n));
                    }
                }
                Graph graph = PipelineSupport.capture(stream, () -> comm.allReduce(send, offset, recv, offset, count,
                        DataType.FLOAT32, ReduceOp.SUM, stream));
                try (GraphExec exec = graph.instantiate()) {
                    time("graph launch", null, exec::launch);
                    if (NativeBaseline.supports(comm)) {
                        time("native C graph launch", null, (s, n) -> NativeBaseline.launch(comm, exec, s, n));
                    }
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
            time(name, reference, step.batch());
        }

        private void time(String name, String reference, DeviceBenchmark.Batch batch) throws Exception {
            DeviceBenchmark.warmUp(stream, batch);
            double[] timeAndHost = timer.time(ctx.rank(), stream, batch, iters, 3);
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
