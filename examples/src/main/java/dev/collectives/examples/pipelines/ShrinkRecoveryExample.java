package dev.collectives.examples.pipelines;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.examples.Check;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Recovery from a dead rank with {@code shrink}: the data-parallel gradient allreduce of {@link HybridParallelExample}
 * loses rank {@code doomed}, which dies as {@link Death} says: it halts its process (no shutdown hooks, no goodbye to
 * its peers, as if killed) as its second step begins, or it steps on until it is killed or frozen from outside. The
 * others' step fails naming it; they close the pipeline, shrink it away, bind the
 * pipeline again on the survivors' communicator over the same gradients and stream, and run {@code steps} steps
 * among themselves. Each step is checked against the sum computed on the host of the ranks taking part. After the
 * first step that follows the recovery, each survivor prints its {@link RecoveryPhases}; the halting rank prints when
 * it halts. The pipeline
 * registers as {@code registration} says (GRAPH: {@link DataParallelGradients}; LOCAL, NONE: {@link
 * RecoveryGradientsLocal}, {@link RecoveryGradientsNone}). It runs as one rank of a multi-process job (the runner's
 * {@code recovery} subcommand): only there can one rank die while the others go on.
 *
 * <p>{@link #replacing} instead: the survivors wait for a process started in the dead rank's place
 * ({@code COLLECTIVES_REPLACEMENT=1}), form a communicator of the job's size with it ({@code comm.reform}), bind the
 * pipeline on it with a stream of its own, and run step 2 again and {@code steps} more steps, each with every rank's
 * sum; the replacement binds on the communicator it joined and runs the same steps.
 *
 * <p>{@link #growing} instead: no rank dies; after the first step the ranks grow the job by processes started to join
 * it ({@code COLLECTIVES_JOINING=1}, {@code comm.grow}), bind the pipeline on the grown communicator with a stream of
 * its own, and run {@code steps} steps, each with every rank's sum; each process that joined binds on the
 * communicator it joined and runs the same steps. The phases a rank prints are timed from the grow's call.
 */
public final class ShrinkRecoveryExample implements Example {
    /** The exit status of the rank that halts: what a shell reports for a process killed by SIGKILL. */
    public static final int HALTED = 137;

    /** How long the survivors wait for the dead rank's replacement. */
    public static final Duration REPLACEMENT_WAIT = Duration.ofSeconds(120);

    /** How long every rank steps on, waiting for a death from outside ({@link Death#fromOutside()}), in seconds. */
    public static final int DEATH_WAIT_SECONDS = 120;

    private static final int SHARD = (int) TensorParallelShards.SHARD;

    private final int doomed;
    private final Death death;
    private final int status;
    private final Registration registration;
    private final int steps;
    /** Whether the survivors reform the job with a replacement instead of shrinking. */
    private final boolean replace;
    /** Whether this process is the replacement of rank {@code doomed}. */
    private final boolean replacement;
    /** How many processes the ranks take in after the first step ({@link #growing}); 0 otherwise. */
    private final int added;
    /** Whether this process joins the job at its growth. */
    private final boolean joining;

    /**
     * Rank {@code doomed} dies as {@code death} says (halting with exit status {@code status}); the survivors run
     * {@code steps} steps in the {@code registration} mode after the recovery.
     */
    public ShrinkRecoveryExample(int doomed, Death death, int status, Registration registration, int steps) {
        this(doomed, death, status, registration, steps, false, false, 0, false);
    }

    private ShrinkRecoveryExample(
            int doomed,
            Death death,
            int status,
            Registration registration,
            int steps,
            boolean replace,
            boolean replacement,
            int added,
            boolean joining) {
        this.doomed = doomed;
        this.death = death;
        this.status = status;
        this.registration = registration;
        this.steps = steps;
        this.replace = replace;
        this.replacement = replacement;
        this.added = added;
        this.joining = joining;
    }

    /**
     * No rank dies: after the first step the ranks grow the job by {@code added} processes that join it (this process
     * is one of them when {@code joining}), and all of them run {@code steps} steps in the {@code registration} mode.
     */
    public static ShrinkRecoveryExample growing(int added, Registration registration, int steps, boolean joining) {
        return new ShrinkRecoveryExample(-1, Death.HALT, 0, registration, steps, false, false, added, joining);
    }

    /**
     * As the constructor, but the survivors reform the job with the replacement of rank {@code doomed}, which this
     * process is when {@code replacement}; after step 2 they run {@code steps} more steps with it.
     */
    public static ShrinkRecoveryExample replacing(
            int doomed, Death death, int status, Registration registration, int steps, boolean replacement) {
        return new ShrinkRecoveryExample(doomed, death, status, registration, steps, true, replacement, 0, false);
    }

    @Override
    public String name() {
        return added > 0 ? "grow-recovery" : replace ? "replace-recovery" : "shrink-recovery";
    }

    @Override
    public String summary() {
        if (added > 0) {
            return "a gradient allreduce (" + registration + ") whose ranks take in " + added + " processes that join"
                    + " after step 1, then run " + steps + (steps == 1 ? " step" : " steps") + " with them";
        }
        String dies = switch (death) {
            case HALT -> " dies in step 2";
            case KILL -> " is killed from outside while it steps";
            case FREEZE -> " is frozen from outside while it steps";
        };
        return "a gradient allreduce (" + registration + ") whose rank " + doomed + dies + "; the others "
                + (replace
                        ? "reform the job with its replacement and run step 2 and " + steps + " more"
                        : "shrink it away and run " + steps + (steps == 1 ? " step" : " steps"));
    }

    @Override
    public int minRanks() {
        return Math.max(2, doomed + 1);
    }

    @Override
    public RankReport run(RankContext rank) {
        int r = rank.rank();
        int[] everyRank = IntStream.range(0, rank.size()).toArray();
        try (DeviceBuffer grads = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, SHARD)) {
            if (replacement || joining) {
                String who = replacement ? "replacement" : "joiner";
                System.out.println(who + ": rank " + r + " of " + rank.size() + " (" + rank.comm() + ")");
                try (Gradients gradients = bind(rank.comm(), rank.stream(), grads)) {
                    System.out.println(RecoveryPhases.newProcessBound(who));
                    return atNewSize(rank, rank.comm(), rank.stream(), gradients, grads, Check.ok("joined"), null);
                }
            }
            if (added > 0) {
                return grow(rank, grads);
            }
            Check first;
            Timeline timeline;
            try (Gradients gradients = bind(rank.comm(), rank.stream(), grads)) {
                long startToBound = RecoveryPhases.sinceProcessStart();
                first = step(rank, rank.stream(), 0, gradients, grads, everyRank);
                Optional<Failure> failure = awaitDeath(rank, gradients, grads, everyRank);
                if (failure.isEmpty()) {
                    return new RankReport(
                            gradients.pipeline().describe(),
                            Check.wrong(r, "steps without rank " + doomed, "a failure naming it", "success"));
                }
                timeline = new Timeline(startToBound);
                System.out.println("step " + failure.get().step() + " failed: "
                        + failure.get().cause().getMessage());
                if (r == doomed) {
                    throw failure.get().cause(); // it ran again, frozen, after the others went on without it
                }
                first = Check.all(first, failure.get().before());
            }
            if (replace) {
                try (Communicator reformed = rank.comm().reform(REPLACEMENT_WAIT);
                        Stream stream = reformed.createStream()) {
                    timeline.formed();
                    try (Gradients gradients = bind(reformed, stream, grads)) {
                        timeline.bound();
                        System.out.println(
                                "reformed: rank " + reformed.rank() + " of " + reformed.size() + " (" + reformed + ")");
                        return atNewSize(rank, reformed, stream, gradients, grads, first, timeline);
                    }
                }
            }
            int[] survivors =
                    IntStream.range(0, rank.size()).filter(q -> q != doomed).toArray();
            try (Communicator shrunk = rank.comm().shrink(doomed)) {
                timeline.formed();
                try (Gradients gradients = bind(shrunk, rank.stream(), grads)) {
                    timeline.bound();
                    System.out.println("shrunk: rank " + shrunk.rank() + " of " + shrunk.size() + " (" + shrunk + ")");
                    Check last = Check.ok("no step");
                    for (int iteration = 1; iteration <= steps && last.isOk(); iteration++) {
                        last = step(rank, rank.stream(), iteration, gradients, grads, survivors);
                        timeline.stepped();
                    }
                    System.out.println(
                            "recovered: " + steps + (steps == 1 ? " step" : " steps") + " among the survivors");
                    return new RankReport(
                            gradients.pipeline().describe(), Check.all(first, last), shrunk.rank(), shrunk.size());
                }
            }
        }
    }

    /**
     * Runs steps until one fails for the death of rank {@code doomed}: the failed step, numbered from 1, its failure
     * and the check of the steps before; empty where none failed. With {@link Death#HALT} the doomed rank halts as its
     * step 2 begins; else every rank steps on for up to {@link #DEATH_WAIT_SECONDS}, each step checked, and the doomed rank
     * says when it may die ({@link Death#ready}) for a signal from outside to end it.
     */
    private Optional<Failure> awaitDeath(RankContext rank, Gradients gradients, DeviceBuffer grads, int[] everyRank) {
        int r = rank.rank();
        if (death == Death.HALT) {
            if (r == doomed) {
                System.out.println(RecoveryPhases.halting(doomed));
                System.out.flush();
                Runtime.getRuntime().halt(status);
            }
            grads.copyFromHost(HostData.values(1, r, 0, SHARD));
            try {
                // a survivor that heard of the death already fails at the launch: the library returns the error
                gradients.allReduce().run();
                rank.stream().synchronize();
                return Optional.empty();
            } catch (CollectivesException e) {
                return Optional.of(new Failure(2, e, Check.ok("no step")));
            }
        }
        long deadline =
                System.nanoTime() + Duration.ofSeconds(DEATH_WAIT_SECONDS).toNanos();
        Check before = Check.ok("no step");
        for (int iteration = 1; System.nanoTime() < deadline && before.isOk(); iteration++) {
            try {
                before = step(rank, rank.stream(), iteration, gradients, grads, everyRank);
            } catch (CollectivesException e) {
                return Optional.of(new Failure(iteration + 1, e, before));
            }
            if (r == doomed && iteration == Death.READY_AFTER) {
                System.out.println(Death.ready(r));
                System.out.flush();
            }
        }
        return Optional.empty();
    }

    /** The step that failed for the death (numbered from 1), its failure, and the check of the step before. */
    private record Failure(int step, CollectivesException cause, Check before) {}

    /**
     * After step 1 this rank grows the job by {@link #added} processes that join it, timed from the grow's call, binds
     * on the grown communicator with a stream of its own, and runs {@link #steps} steps with every rank's sum.
     */
    private RankReport grow(RankContext rank, DeviceBuffer grads) {
        Check first;
        long startToBound;
        try (Gradients gradients = bind(rank.comm(), rank.stream(), grads)) {
            startToBound = RecoveryPhases.sinceProcessStart();
            first = step(
                    rank,
                    rank.stream(),
                    0,
                    gradients,
                    grads,
                    IntStream.range(0, rank.size()).toArray());
        }
        System.out.println("growing: rank " + rank.rank() + " asks for " + added + " processes to join");
        Timeline timeline = new Timeline(startToBound); // from the grow's call
        try (Communicator grown = rank.comm().grow(added, REPLACEMENT_WAIT);
                Stream stream = grown.createStream()) {
            timeline.formed();
            try (Gradients gradients = bind(grown, stream, grads)) {
                timeline.bound();
                System.out.println("grown: rank " + grown.rank() + " of " + grown.size() + " (" + grown + ")");
                return atNewSize(rank, grown, stream, gradients, grads, first, timeline);
            }
        }
    }

    /**
     * The steps on {@code comm}, the job reformed with the replacement (step 2 again and {@code steps} more) or grown
     * ({@code steps}), each with every rank's sum; a survivor's or member's {@code timeline} (null on the process that
     * replaced or joined) prints its phases after the first.
     */
    private RankReport atNewSize(
            RankContext rank,
            Communicator comm,
            Stream stream,
            Gradients gradients,
            DeviceBuffer grads,
            Check first,
            Timeline timeline) {
        int[] everyRank = IntStream.range(0, comm.size()).toArray();
        int last = added > 0 ? steps : steps + 1;
        Check check = Check.ok("no step");
        for (int iteration = 1; iteration <= last && check.isOk(); iteration++) {
            check = step(rank, stream, iteration, gradients, grads, everyRank);
            if (timeline != null) {
                timeline.stepped();
            }
        }
        System.out.println(
                added > 0
                        ? "recovered: " + steps + (steps == 1 ? " step" : " steps") + " on " + comm.size()
                                + " ranks after the growth"
                        : "recovered: step 2 and " + steps + " more with the replacement of rank " + doomed);
        return new RankReport(gradients.pipeline().describe(), Check.all(first, check), comm.rank(), comm.size());
    }

    /**
     * A survivor's recovery as it goes: heard (its call failed naming the death), the new communicator, bound, the
     * first checked step, whose end prints the {@link RecoveryPhases}.
     */
    private static final class Timeline {
        private final long startToBound;
        private final long heardAt = System.currentTimeMillis();
        private final long heardNanos = System.nanoTime();
        private long formedNanos;
        private long boundNanos;
        private boolean printed;

        Timeline(long startToBound) {
            this.startToBound = startToBound;
        }

        void formed() {
            formedNanos = System.nanoTime();
        }

        void bound() {
            boundNanos = System.nanoTime();
        }

        /** A checked step ended: after the first, prints the phases. */
        void stepped() {
            if (!printed) {
                printed = true;
                long now = System.nanoTime();
                System.out.println(new RecoveryPhases(
                                heardAt,
                                millis(formedNanos - heardNanos),
                                millis(boundNanos - formedNanos),
                                millis(now - boundNanos),
                                startToBound)
                        .line());
            }
        }

        private static long millis(long nanos) {
            return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos);
        }
    }

    /** A gradients pipeline bound in this example's registration mode, and its step. */
    private record Gradients(Pipeline pipeline, Runnable allReduce) implements AutoCloseable {
        @Override
        public void close() {
            pipeline.close();
        }
    }

    private Gradients bind(Communicator comm, Stream stream, DeviceBuffer grads) {
        return switch (registration) {
            case GRAPH -> {
                var bound = CollectiveDataParallelGradients.bind(comm, stream, grads);
                yield new Gradients(bound, bound::allReduce);
            }
            case LOCAL -> {
                var bound = CollectiveRecoveryGradientsLocal.bind(comm, stream, grads);
                yield new Gradients(bound, bound::allReduce);
            }
            case NONE -> {
                var bound = CollectiveRecoveryGradientsNone.bind(comm, stream, grads);
                yield new Gradients(bound, bound::allReduce);
            }
        };
    }

    /** Iteration {@code iteration}'s gradients of this rank, summed over {@code ranks}, as the host computes it. */
    private static Check step(
            RankContext rank, Stream stream, int iteration, Gradients gradients, DeviceBuffer grads, int[] ranks) {
        grads.copyFromHost(HostData.values(iteration, rank.rank(), 0, SHARD));
        gradients.allReduce().run();
        stream.synchronize();
        float[] summed = new float[SHARD];
        for (int q : ranks) {
            float[] values = HostData.values(iteration, q, 0, SHARD);
            for (int j = 0; j < SHARD; j++) {
                summed[j] += values[j];
            }
        }
        return HostData.compare(rank.rank(), "grads of step " + (iteration + 1), summed, HostData.read(grads));
    }
}
