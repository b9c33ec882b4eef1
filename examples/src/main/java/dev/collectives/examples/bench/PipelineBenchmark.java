package dev.collectives.examples.bench;

import dev.collectives.examples.bench.DeviceBenchmark.Row;
import dev.collectives.examples.bench.DeviceBenchmark.Step;
import dev.collectives.examples.bench.DeviceBenchmark.Timer;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The generated pipelines ({@code Collective<Mode>BenchPipeline}) timed per {@code step()} with
 * {@link DeviceBenchmark}'s timer, and printed beside the hand-written Java calls and the native baseline of the
 * same op, mode and size: allreduce float32 at 8 B and 128 MiB, allgather at 1 GiB gathered, on {@value #RANKS}
 * ranks (the size the pipelines declare).
 */
final class PipelineBenchmark {
    static final int RANKS = 2;
    private static final int ROUNDS = 3;
    static final long SMALL_COUNT = 2;
    static final long LARGE_COUNT = 32L << 20;
    /** One rank's share of the 1 GiB allgather, in float32 elements. */
    static final long SEND_COUNT = (1L << 30) / 4 / RANKS;
    static final long RECV_COUNT = SEND_COUNT * RANKS;

    private final DeviceBenchmark bench;
    private final PrintStream out;

    PipelineBenchmark(DeviceBenchmark bench, PrintStream out) {
        this.bench = bench;
        this.out = out;
    }

    /** One timed step of a bound pipeline. */
    private record Case(Op op, long count, Step step) {
    }

    /** A bound pipeline and its steps, in the order of the table. */
    private record Bound(Pipeline pipeline, List<Case> cases) {
    }

    private static Bound bind(Mode mode, Communicator comm, Stream stream) {
        switch (mode) {
            case NONE: {
                CollectiveNoneBenchPipeline p = CollectiveNoneBenchPipeline.bind(comm, stream);
                return bound(p, s -> p.allReduceSmall(), s -> p.allReduceLarge(), s -> p.allGather());
            }
            case LOCAL: {
                CollectiveLocalBenchPipeline p = CollectiveLocalBenchPipeline.bind(comm, stream);
                return bound(p, s -> p.allReduceSmall(), s -> p.allReduceLarge(), s -> p.allGather());
            }
            case GRAPH: {
                CollectiveGraphBenchPipeline p = CollectiveGraphBenchPipeline.bind(comm, stream);
                return bound(p, s -> p.allReduceSmall(), s -> p.allReduceLarge(), s -> p.allGather());
            }
            default:
                throw new IllegalArgumentException("no pipeline for mode " + mode);
        }
    }

    private static Bound bound(Pipeline pipeline, Step allReduceSmall, Step allReduceLarge, Step allGather) {
        return new Bound(pipeline, List.of(new Case(Op.ALLREDUCE, SMALL_COUNT, allReduceSmall),
                new Case(Op.ALLREDUCE, LARGE_COUNT, allReduceLarge), new Case(Op.ALLGATHER, SEND_COUNT, allGather)));
    }

    /** Times the pipelines of {@code modes} (windows have none here) and prints them beside the other rows. */
    void run(LocalCluster cluster, int ranks, List<Mode> modes, Map<String, Map<Long, Row>> java,
             Map<String, Map<Long, Row>> nativeRows) {
        out.printf("%n# generated pipelines: Collective<Mode>BenchPipeline.step() per op | the hand-written Java call "
                + "(tables above) | native C baseline; ratio = their time / the pipeline's time%n");
        if (ranks != RANKS) {
            out.printf("# skipped: the pipelines declare %d ranks, this run has %d%n", RANKS, ranks);
            return;
        }
        out.printf("# %-10s %-6s %12s %10s %8s %8s | %10s %8s | %10s %8s | %7s %7s%n", "op", "mode", "size(B)",
                "time(us)", "busbw", "host(us)", "hand(us)", "busbw", "native(us)", "busbw", "hand/p", "native/p");
        for (Mode mode : modes) {
            if (mode == Mode.WINDOW) {
                continue;
            }
            for (Measured measured : measure(cluster, mode)) {
                Op op = measured.op();
                Row row = measured.row();
                String key = op + "/" + mode;
                Row hand = java.getOrDefault(key, Map.of()).get(row.bytes());
                Row nat = nativeRows.getOrDefault(key, Map.of()).get(row.bytes());
                out.printf("  %-10s %-6s %12d %10.2f %8.2f %8.3f | %s | %s | %7s %7s%n", DeviceBenchmark.name(op), DeviceBenchmark.name(mode),
                        row.bytes(), row.timeUs(), row.busbw(), row.hostUs(), cells(hand), cells(nat),
                        ratio(hand, row), ratio(nat, row));
            }
        }
    }

    /** The rows of one mode's pipeline, in the order of its cases; rank 0 records them. */
    private List<Measured> measure(LocalCluster cluster, Mode mode) {
        List<Measured> rows = new ArrayList<>();
        Timer timer = new Timer(RANKS);
        cluster.run(ctx -> {
            Stream stream = ctx.stream();
            Bound bound = bind(mode, ctx.comm(), stream);
            try (Pipeline pipeline = bound.pipeline()) {
                DeviceBenchmark.warmUp(stream, bound.cases().get(0).step());
                for (Case c : bound.cases()) {
                    int iters = DeviceBenchmark.iterations(bench.totalBytes(c.op(), c.count()));
                    Row row = bench.row(c.op(), c.count(), timer.time(ctx.rank(), stream, c.step().batch(), iters,
                            ROUNDS));
                    if (ctx.rank() == 0) {
                        rows.add(new Measured(c.op(), row));
                    }
                }
            }
        });
        return rows;
    }

    private record Measured(Op op, Row row) {
    }

    private static String cells(Row row) {
        return row == null ? String.format(Locale.ROOT, "%10s %8s", "-", "-")
                : String.format(Locale.ROOT, "%10.2f %8.2f", row.timeUs(), row.busbw());
    }

    private static String ratio(Row other, Row pipeline) {
        return other == null ? "-" : String.format(Locale.ROOT, "%.3f", other.timeUs() / pipeline.timeUs());
    }
}
