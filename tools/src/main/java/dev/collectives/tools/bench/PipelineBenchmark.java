package dev.collectives.tools.bench;

import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The generated pipelines ({@code Collective<Mode>BenchPipeline}) timed per {@code step()} with
 * the benchmarks' {@link Timer}, and printed beside the hand-written Java calls and the native baseline of the
 * same op, mode and size: allreduce float32 at 8 B and 128 MiB, allgather at 1 GiB gathered, on {@value #RANKS}
 * ranks (the size the pipelines declare). The device benchmark's options bound it as they bound the tables: the
 * steps timed are those of {@code --ops} from {@code --min}, {@code --rounds} rounds each, and the pipelines, whose
 * buffers are declared at 1 GiB, are bound only when {@code --max} reaches that.
 */
final class PipelineBenchmark {
    static final int RANKS = 2;
    static final long SMALL_COUNT = 2;
    static final long LARGE_COUNT = 32L << 20;
    /** One rank's share of the 1 GiB allgather, in float32 elements. */
    static final long SEND_COUNT = (1L << 30) / 4 / RANKS;

    static final long RECV_COUNT = SEND_COUNT * RANKS;
    /** The pipelines' largest buffer, recv; binding allocates it whichever steps are timed. */
    private static final long LARGEST_BUFFER_BYTES = RECV_COUNT * 4;

    private final DeviceBenchmark bench;
    private final PrintStream out;

    PipelineBenchmark(DeviceBenchmark bench, PrintStream out) {
        this.bench = bench;
        this.out = out;
    }

    /** What a step moves: {@code count} elements per rank's call of {@code op}. */
    private record Size(Op op, long count) {}

    /** The steps' sizes, in the order of {@link #bound}'s steps. */
    private static final List<Size> STEP_SIZES = List.of(
            new Size(new Op(OpKind.ALL_REDUCE), SMALL_COUNT),
            new Size(new Op(OpKind.ALL_REDUCE), LARGE_COUNT),
            new Size(new Op(OpKind.ALL_GATHER), SEND_COUNT));

    /** One timed step of a bound pipeline. */
    private record Case(Size size, Step step) {}

    /** A bound pipeline and its steps, in the order of the table. */
    private record Bound(Pipeline pipeline, List<Case> cases) {}

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
        List<Step> steps = List.of(allReduceSmall, allReduceLarge, allGather);
        return new Bound(
                pipeline,
                IntStream.range(0, steps.size())
                        .mapToObj(i -> new Case(STEP_SIZES.get(i), steps.get(i)))
                        .toList());
    }

    /** Times the pipelines of the bench's modes (windows have none here) and prints them beside the other rows. */
    void run(LocalCluster cluster, Map<String, Map<Long, Row>> java, Map<String, Map<Long, Row>> nativeRows) {
        out.printf("%n# generated pipelines: Collective<Mode>BenchPipeline.step() per op | the hand-written Java call "
                + "(tables above) | native C baseline; ratio = their time / the pipeline's time%n");
        if (bench.ranks != RANKS) {
            out.printf("# skipped: the pipelines declare %d ranks, this run has %d%n", RANKS, bench.ranks);
            return;
        }
        if (bench.maxBytes < LARGEST_BUFFER_BYTES) {
            out.printf(
                    "# skipped: the pipelines' buffers are declared at %d bytes, beyond --max %d%n",
                    LARGEST_BUFFER_BYTES, bench.maxBytes);
            return;
        }
        if (STEP_SIZES.stream().noneMatch(this::asked)) {
            out.printf(
                    "# skipped: none of their steps (allreduce of 8 B and 128 MiB, allgather of 1 GiB) is of an op "
                            + "in --ops and from --min %d%n",
                    bench.minBytes);
            return;
        }
        out.printf(
                "# %-10s %-6s %12s %10s %8s %8s | %10s %8s | %10s %8s | %7s %7s%n",
                "op",
                "mode",
                "size(B)",
                "time(us)",
                "busbw",
                "host(us)",
                "hand(us)",
                "busbw",
                "native(us)",
                "busbw",
                "hand/p",
                "native/p");
        for (Mode mode : bench.modes) {
            if (mode == Mode.WINDOW) {
                continue;
            }
            for (Measured measured : measure(cluster, mode)) {
                Op op = measured.op();
                Row row = measured.row();
                String key = op + "/" + mode;
                Row hand = java.getOrDefault(key, Map.of()).get(row.bytes());
                Row nat = nativeRows.getOrDefault(key, Map.of()).get(row.bytes());
                out.printf(
                        "  %-10s %-6s %12d %10.2f %8.2f %8.3f | %s | %s | %7s %7s%n",
                        op.name(),
                        BenchFormat.name(mode),
                        row.bytes(),
                        row.timeUs(),
                        row.busbw(),
                        row.hostUs(),
                        cells(hand),
                        cells(nat),
                        ratio(hand, row),
                        ratio(nat, row));
            }
        }
    }

    /** Whether the options ask for a step of this size: its op in --ops, its bytes from --min. */
    private boolean asked(Size size) {
        return bench.ops.contains(size.op()) && bench.totalBytes(size.op(), size.count()) >= bench.minBytes;
    }

    /** The rows of one mode's pipeline asked for, in the order of its cases; rank 0 records them. */
    private List<Measured> measure(LocalCluster cluster, Mode mode) {
        List<Measured> rows = new ArrayList<>();
        Timer timer = new Timer(RANKS);
        cluster.run(ctx -> {
            Stream stream = ctx.stream();
            Bound bound = bind(mode, ctx.comm(), stream);
            try (Pipeline pipeline = bound.pipeline()) {
                List<Case> cases =
                        bound.cases().stream().filter(c -> asked(c.size())).toList();
                Timer.warmUp(stream, cases.get(0).step());
                for (Case c : cases) {
                    Op op = c.size().op();
                    int iters = Timer.iterations(bench.totalBytes(op, c.size().count()));
                    Row row = bench.row(
                            op,
                            c.size().count(),
                            timer.time(ctx.rank(), stream, c.step().batch(), iters, bench.rounds));
                    if (ctx.rank() == 0) {
                        rows.add(new Measured(op, row));
                    }
                }
            }
        });
        return rows;
    }

    private record Measured(Op op, Row row) {}

    private static String cells(Row row) {
        return row == null
                ? String.format(Locale.ROOT, "%10s %8s", "-", "-")
                : String.format(Locale.ROOT, "%10.2f %8.2f", row.timeUs(), row.busbw());
    }

    private static String ratio(Row other, Row pipeline) {
        return other == null ? "-" : String.format(Locale.ROOT, "%.3f", other.timeUs() / pipeline.timeUs());
    }
}
