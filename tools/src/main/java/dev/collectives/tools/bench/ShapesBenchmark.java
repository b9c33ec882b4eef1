package dev.collectives.tools.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.OpKind;
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
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.CallCheck;
import dev.collectives.runtime.internal.GraphCache;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What sizes given at call time cost per call: one allreduce of {@value #COUNT} float32 elements (8 B, where the
 * call's own cost shows) at element {@value #OFFSET} of {@value #ARENA}-element arenas, issued
 * <ul>
 *     <li>eagerly: the plain call on slices, the call with element offsets, and a LOCAL pipeline's constant step
 *     and its step with parameters (offset, n) called with the same values, which checks them on every call;</li>
 *     <li>from graphs: a graph launched directly, a {@link GraphCache} launch of a held tuple, and a GRAPH
 *     pipeline's constant step and its cached step with parameters, with one tuple and with 4 in turn;</li>
 *     <li>by the native baseline on a native backend: the same call and graph launch from a C loop in this
 *     process ({@link NativeBaseline}).</li>
 * </ul>
 * Each row is timed by the benchmarks' {@link Timer} (wall time per op and host enqueue time per op, slowest
 * rank, best of 3 rounds) and compared with the row it adds to: dt and dhost are the differences. Two summary
 * lines give what the checks of a step with parameters add, and what a cached GRAPH step adds to a native graph
 * launch.
 *
 * <pre>
 * java -cp ... dev.collectives.tools.bench.ShapesBenchmark [--backend nccl] [--ranks 1] [--iters 5000]
 * </pre>
 */
@Command(
        name = "shapes",
        versionProvider = BuildVersion.class,
        description = "Per-call cost of sizes given at call time: offsets, checked step parameters, cached graphs.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:measured", "1:the run failed", "2:a bad command line, or an unavailable backend"})
public final class ShapesBenchmark implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    /** Elements of the arenas the steps address; the buckets lie in them. */
    static final long ARENA = 1 << 16;
    /** Elements of every allreduce measured. */
    static final long COUNT = 2;
    /** The element offset of the measured bucket. */
    static final long OFFSET = 1024;
    /** The offsets of the 4 buckets taken in turn. */
    private static final long[] OFFSETS = {OFFSET, 4096, 8192, 16384};

    private static final String LOCAL_CONSTANT = "LOCAL constant step";
    private static final String LOCAL_STEP = "LOCAL step (offset, n)";
    private static final String GRAPH_STEP = "GRAPH step (offset, n), 1 tuple";
    private static final String NATIVE_GRAPH = "native C graph launch";

    @Mixin
    ClusterOptions cluster = new ClusterOptions("nccl", "1");

    int ranks;

    @Option(
            names = "--iters",
            paramLabel = "N",
            defaultValue = "5000",
            description = "ops per round; default: ${DEFAULT-VALUE}")
    int iters;

    @Spec
    CommandSpec spec;

    private Backend backend;
    /** Rows in the order measured; rank 0 records them. */
    private final Map<String, Measured> rows = new LinkedHashMap<>();

    private record Measured(String name, String reference, double timeUs, double hostUs) {}

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new ShapesBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        backend = cluster.backend().get();
        ranks = cluster.ranks().count();
        BenchCommandLine.positive(spec, "--iters", iters);
        System.out.printf(
                "# ShapesBenchmark: backend %s, %d rank(s), allreduce of %d x float32 (%d B), sum; %d ops "
                        + "per round, best of 3 rounds; time and host enqueue time per op in us; dt, dhost: minus the "
                        + "row named in 'vs'; %s=%s (sim always checks that the ranks call a step alike)%n",
                backend.name(), ranks, COUNT, COUNT * 4, iters, CallCheck.VARIABLE, System.getenv(CallCheck.VARIABLE));
        try (LocalCluster cluster = backend.local(ranks)) {
            Timer timer = new Timer(ranks);
            cluster.run(ctx -> new RankRun(ctx, timer).run());
        }
        print();
        return BenchCommandLine.PASSED;
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
            eager();
            graphs();
            try (CollectiveLocalShapesBenchPipeline p = CollectiveLocalShapesBenchPipeline.binder(comm, stream)
                    .elements(ARENA)
                    .bind()) {
                time(LOCAL_CONSTANT, "call", s -> p.constant());
                time(LOCAL_STEP, LOCAL_CONSTANT, s -> p.bucket(OFFSET, COUNT));
            }
            try (CollectiveGraphShapesBenchPipeline p = CollectiveGraphShapesBenchPipeline.binder(comm, stream)
                    .elements(ARENA)
                    .bind()) {
                time("GRAPH constant step", "graph launch", s -> p.constant());
                time(GRAPH_STEP, "GRAPH constant step", s -> p.bucket(OFFSET, COUNT));
                int[] turn = {0};
                time(
                        "GRAPH step (offset, n), 4 tuples",
                        "GRAPH constant step",
                        s -> p.bucket(OFFSETS[turn[0]++ & 3], COUNT));
            }
        }

        /** The plain call, the call with offsets and the native call, on registered buffers as a LOCAL step's. */
        private void eager() throws Exception {
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA);
                    DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA);
                    RegistrationHandle sendRegistered = comm.register(send);
                    RegistrationHandle recvRegistered = comm.register(recv)) {
                DeviceBuffer sendAt = send.slice(OFFSET, COUNT);
                DeviceBuffer recvAt = recv.slice(OFFSET, COUNT);
                time("call", null, s -> comm.allReduce(sendAt, recvAt, COUNT, DataType.FLOAT32, ReduceOp.SUM, s));
                time(
                        "call with offsets",
                        "call",
                        s -> comm.allReduce(send, OFFSET, recv, OFFSET, COUNT, DataType.FLOAT32, ReduceOp.SUM, s));
                if (NativeBaseline.supports(comm)) {
                    time(
                            "native C call",
                            null,
                            (s, n) -> NativeBaseline.of(comm)
                                    .loop(
                                            OpKind.ALL_REDUCE,
                                            sendAt,
                                            recvAt,
                                            COUNT,
                                            DataType.FLOAT32,
                                            ReduceOp.SUM,
                                            Op.ROOT_RANK,
                                            s,
                                            n));
                }
            }
        }

        /** A graph launched directly and from the native loop, and graphs of a GraphCache. */
        private void graphs() throws Exception {
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA);
                    DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA)) {
                // captured as a user would, with the API: what generated code adds is timed in the rows below
                stream.beginCapture();
                comm.allReduce(send, OFFSET, recv, OFFSET, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
                Graph graph = stream.endCapture();
                try (GraphExec exec = graph.instantiate()) {
                    time("graph launch", null, exec::launch);
                    if (NativeBaseline.supports(comm)) {
                        time(
                                NATIVE_GRAPH,
                                null,
                                (s, n) -> NativeBaseline.of(comm).launchLoop(exec, s, n));
                    }
                } finally {
                    graph.close();
                }
                try (GraphCache cache = new GraphCache(
                        comm,
                        stream,
                        "ShapesBenchmark",
                        "bucket",
                        4,
                        GraphCacheOverflow.WARN,
                        args -> comm.allReduce(
                                send, args[0], recv, args[0], args[1], DataType.FLOAT32, ReduceOp.SUM, stream))) {
                    time("GraphCache.launch, 1 tuple", "graph launch", s -> cache.launch(OFFSET, COUNT));
                    int[] turn = {0};
                    time(
                            "GraphCache.launch, 4 tuples",
                            "graph launch",
                            s -> cache.launch(OFFSETS[turn[0]++ & 3], COUNT));
                }
            }
        }

        private void time(String name, String reference, Step step) throws Exception {
            time(name, reference, step.batch());
        }

        private void time(String name, String reference, Batch batch) throws Exception {
            Timer.warmUp(stream, batch);
            double[] timeAndHost = timer.time(ctx.rank(), stream, batch, iters, 3);
            if (ctx.rank() == 0) {
                rows.put(name, new Measured(name, reference, timeAndHost[0], timeAndHost[1]));
            }
            timer.await();
        }
    }

    private void print() {
        System.out.printf(
                "%-34s %10s %10s | %-28s %8s %8s%n", "# row", "time(us)", "host(us)", "vs", "dt(us)", "dhost(us)");
        for (Measured m : rows.values()) {
            Measured ref = m.reference() == null ? null : rows.get(m.reference());
            System.out.printf(
                    Locale.ROOT,
                    "  %-32s %10.3f %10.3f | %-28s %8s %8s%n",
                    m.name(),
                    m.timeUs(),
                    m.hostUs(),
                    ref == null ? "-" : ref.name(),
                    ref == null ? "-" : delta(m.timeUs() - ref.timeUs()),
                    ref == null ? "-" : delta(m.hostUs() - ref.hostUs()));
        }
        System.out.printf(
                "# the checks of a step with parameters: %s - %s = %s%n",
                LOCAL_STEP, LOCAL_CONSTANT, added(LOCAL_STEP, LOCAL_CONSTANT));
        System.out.printf(
                "# a cached GRAPH step over a native graph launch: %s - %s = %s%n",
                GRAPH_STEP, NATIVE_GRAPH, added(GRAPH_STEP, NATIVE_GRAPH));
    }

    /** What {@code row} adds to {@code reference}, per op: "dt us (host dhost us)", or why it cannot say. */
    private String added(String row, String reference) {
        Measured m = rows.get(row);
        Measured ref = rows.get(reference);
        return m == null || ref == null
                ? "- (" + reference + " not measured)"
                : delta(m.timeUs() - ref.timeUs()) + " us per op (host enqueue " + delta(m.hostUs() - ref.hostUs())
                        + " us)";
    }

    private static String delta(double us) {
        return String.format(Locale.ROOT, "%+.3f", us);
    }
}
