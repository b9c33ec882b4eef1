package dev.collectives.tools.differential;

import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Clusters;
import dev.collectives.examples.Runner;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.tools.LocalJob;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;

/**
 * The differential harness: for each rank count, runs every item on sim, as threads of this process, then on the
 * other backend as one process per rank (sharing the GPUs round-robin, see {@link LocalJob}), each of which
 * compares its outcomes with sim's and writes its verdicts; then reports, item by item and with a summary line per
 * rank count.
 */
final class Harness {
    private static final String SIM = Comparison.REFERENCE;
    /**
     * What to run, and where.
     *
     * @param backend    the backend compared with sim
     * @param ranks      the rank counts, in order
     * @param devices    the GPUs the processes share, round-robin
     * @param jobTimeout how long a job of processes may take
     * @param keepData   whether to keep what sim read back after the comparison
     */
    record Settings(String backend, List<Integer> ranks, int devices, Duration jobTimeout, boolean keepData) {}

    private final Settings settings;
    private final Work work;
    private final List<String> rankArguments;
    private final PrintStream out;

    /** {@code rankArguments}: what a rank process is told of the work, so that it makes the same items. */
    Harness(Settings settings, Work work, List<String> rankArguments, PrintStream out) {
        this.settings = settings;
        this.work = work;
        this.rankArguments = rankArguments;
        this.out = out;
    }

    int run() {
        boolean sim = SIM.equals(settings.backend());
        out.println("differential: sim (threads of this process) against " + settings.backend() + " (a process "
                + "per rank" + (sim ? "" : ", sharing " + settings.devices() + " GPU(s) round-robin") + "), at "
                + settings.ranks().stream().map(String::valueOf).collect(Collectors.joining(", ")) + " ranks; "
                + "results in " + work.results().toAbsolutePath());
        Corpus corpus = work.corpus();
        if (work.parts().contains(Part.CORPUS) && corpus.size() > 0) {
            long start = System.nanoTime();
            if (work.corpusPrepared()) {
                corpus.requireCompiledAsAsked();
            } else {
                corpus.compile();
            }
            out.printf(
                    Locale.ROOT,
                    "corpus: %d pipelines of seed %d (op counts up to %d) generated and compiled "
                            + "with the annotation processor %s%n",
                    corpus.size(),
                    corpus.seed(),
                    corpus.maxCount(),
                    work.corpusPrepared()
                            ? "beforehand, into " + corpus.compiled()
                            : String.format(Locale.ROOT, "in %.1f s", seconds(start)));
        }
        List<Item> items = work.items();
        List<String> summaries = new ArrayList<>();
        boolean agree = true;
        for (int n : settings.ranks()) {
            out.println();
            out.println("== " + n + " ranks");
            out.flush();
            Report report = runAt(n, items);
            report.print(out);
            summaries.add(report.summary());
            agree &= report.allAgree();
        }
        out.println();
        summaries.forEach(out::println);
        return agree ? Runner.PASSED : Runner.FAILED;
    }

    private Report runAt(int n, List<Item> items) {
        ResultStore store = new ResultStore(work.results(), n);
        store.reset();
        long start = System.nanoTime();
        for (Item item : items) {
            reference(n, item, store);
        }
        out.printf(Locale.ROOT, "sim, %d threads: %d items in %.1f s%n", n, items.size(), seconds(start));
        Map<Part.Job, String[]> ended = new EnumMap<>(Part.Job.class);
        for (Part.Job job : Part.Job.values()) {
            if (items.stream().anyMatch(i -> i.part().job() == job)) {
                start = System.nanoTime();
                ended.put(job, runJob(n, job, store));
                out.printf(
                        Locale.ROOT,
                        "%s, %d processes (%s job): ended in %.1f s%n",
                        settings.backend(),
                        n,
                        job.label(),
                        seconds(start));
                out.flush();
            }
        }
        Report report = Report.collect(n, items, store, ended);
        if (!settings.keepData()) {
            store.deleteReferenceData();
        }
        return report;
    }

    /** Sim's outcome of {@code item} on every rank, each rank recording its own failure. */
    private void reference(int n, Item item, ResultStore store) {
        AtomicReferenceArray<Outcome> outcomes = new AtomicReferenceArray<>(n);
        var outOfRange = item.outOfRange(n);
        if (outOfRange.isPresent()) {
            for (int r = 0; r < n; r++) {
                outcomes.set(r, Outcome.skipped(outOfRange.get()));
            }
        } else {
            try (LocalCluster cluster = Clusters.open(Backends.get(SIM), referenceCluster(item), n, item.timeout())) {
                cluster.run(rank -> {
                    try {
                        outcomes.set(rank.rank(), item.run(rank));
                    } catch (Throwable e) {
                        outcomes.set(rank.rank(), Outcome.failed(e));
                        throw e;
                    }
                });
            } catch (RuntimeException e) {
                // every rank recorded what it threw
            }
        }
        for (int r = 0; r < n; r++) {
            Outcome o = outcomes.get(r);
            store.writeReference(
                    item,
                    r,
                    o != null ? o : Outcome.failed(new IllegalStateException("rank " + r + " of sim did not finish")));
        }
    }

    /**
     * Against sim in processes, sim's threads get the same settings as the processes (those of the item's job):
     * the two sides then differ only in being threads or processes. Against a device backend, each item gets what
     * it needs, as the examples runner gives it.
     */
    private ClusterSpec referenceCluster(Item item) {
        return SIM.equals(settings.backend()) ? item.part().job().simCluster() : item.cluster();
    }

    /** Starts the job's processes and waits for them; how each ended. */
    private String[] runJob(int n, Part.Job job, ResultStore store) {
        String[] ended = new String[n];
        List<String> arguments = new ArrayList<>(List.of(RankCommand.NAME, "--job", job.label()));
        arguments.addAll(rankArguments);
        try (LocalJob processes = LocalJob.start(
                new LocalJob.Placement(settings.backend(), settings.devices(), "differential"),
                n,
                List.of(),
                arguments,
                r -> store.log(job, r),
                (env, r) -> environment(env, job))) {
            long deadline = System.nanoTime() + settings.jobTimeout().toNanos();
            for (int r = 0; r < n; r++) {
                OptionalInt status = processes.awaitExit(r, deadline);
                ended[r] = status.isPresent()
                        ? "exited with status " + status.getAsInt()
                        : "was stopped after " + settings.jobTimeout().toSeconds() + " s";
            }
        } catch (LocalJob.NotStarted e) {
            Arrays.fill(ended, "was given up: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + job.label() + " job", e);
        }
        return ended;
    }

    /** What a rank of {@code job} needs beside its place: the legacy-registration opt-in, the sim's settings. */
    private void environment(Map<String, String> env, Part.Job job) {
        for (String variable : List.of("NCCL_LEGACY_CUDA_REGISTER", "MCCL_LEGACY_MUSA_REGISTER")) {
            if (job == Part.Job.DATA) {
                env.put(variable, "1");
            } else {
                env.remove(variable);
            }
        }
        if (SIM.equals(settings.backend())) {
            env.putAll(simSettings(job.simCluster()));
        }
    }

    /** The {@code COLLECTIVES_SIM_*} settings that give a joined sim rank what {@code spec} configures. */
    private static Map<String, String> simSettings(ClusterSpec spec) {
        Map<String, String> settings = new java.util.HashMap<>();
        if (spec.ranksPerNode() > 0) {
            settings.put("COLLECTIVES_SIM_RANKS_PER_NODE", String.valueOf(spec.ranksPerNode()));
        }
        settings.put("COLLECTIVES_SIM_MTLINK_SHARP", String.valueOf(spec.needs(ClusterSpec.Need.MTLINK_SHARP)));
        settings.put("COLLECTIVES_SIM_IB_SHARP", String.valueOf(spec.needs(ClusterSpec.Need.IB_SHARP)));
        return settings;
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
