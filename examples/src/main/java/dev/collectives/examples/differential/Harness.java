package dev.collectives.examples.differential;

import dev.collectives.examples.Clusters;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Runner;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.LocalCluster;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;

/**
 * The differential harness: for each rank count, runs every item on sim, as threads of this process, then on the
 * other backend as one process per rank (sharing the GPUs round-robin), each of which compares its outcomes with
 * sim's and writes its verdicts; then reports, item by item and with a summary line per rank count.
 * <p>Where there are more ranks than GPUs, several processes share a GPU, each with its own {@code NCCL_HOSTID}, so
 * that NCCL takes them for separate hosts and connects them through its socket transport ({@code
 * NCCL_SOCKET_IFNAME=lo} unless set). That is a setup for testing behaviour only: the GPU is time-sliced and the
 * ranks talk over sockets.
 */
final class Harness {
    private static final String SIM = Comparison.REFERENCE;
    /** Variables of launchers and of an enclosing job that must not reach the ranks started here. */
    private static final List<String> INHERITED_PREFIXES = List.of("COLLECTIVES_SIM_", "OMPI_", "PMI_", "SLURM_",
            "MPI_LOCAL", "TORCHELASTIC_");
    private static final List<String> INHERITED_NAMES = List.of("RANK", "WORLD_SIZE", "LOCAL_RANK",
            "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "COLLECTIVES_BOOTSTRAP_TIMEOUT");

    /**
     * What to run, and where.
     *
     * @param backend    the backend compared with sim
     * @param ranks      the rank counts, in order
     * @param devices    the GPUs the processes share, round-robin
     * @param jobTimeout how long a job of processes may take
     * @param keepData   whether to keep what sim read back after the comparison
     */
    record Settings(String backend, List<Integer> ranks, int devices, Duration jobTimeout, boolean keepData) {
    }

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
            out.printf(Locale.ROOT, "corpus: %d pipelines of seed %d (op counts up to %d) generated and compiled "
                    + "with the annotation processor %s%n", corpus.size(), corpus.seed(), corpus.maxCount(),
                    work.corpusPrepared() ? "beforehand, into " + corpus.compiled()
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
                out.printf(Locale.ROOT, "%s, %d processes (%s job): ended in %.1f s%n", settings.backend(), n,
                        job.label(), seconds(start));
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
            store.writeReference(item, r, o != null ? o : Outcome.failed(new IllegalStateException(
                    "rank " + r + " of sim did not finish")));
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
        String rendezvous = "tcp://127.0.0.1:" + freePort();
        String token = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        List<Process> processes = new ArrayList<>();
        String[] ended = new String[n];
        try {
            for (int r = 0; r < n; r++) {
                Path log = store.log(job, r);
                Files.createDirectories(log.getParent());
                ProcessBuilder builder = new ProcessBuilder(command(job)).redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                environment(builder.environment(), n, r, job, rendezvous, token);
                processes.add(builder.start());
            }
            long deadline = System.nanoTime() + settings.jobTimeout().toNanos();
            for (int r = 0; r < n; r++) {
                Process p = processes.get(r);
                if (p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    ended[r] = "exited with status " + p.exitValue();
                } else {
                    p.destroyForcibly();
                    ended[r] = "was stopped after " + settings.jobTimeout().toSeconds() + " s";
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the " + job.label() + " job", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + job.label() + " job", e);
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
        return ended;
    }

    /**
     * This Java, its class path and the {@code collectives.*} properties it was given. The ranks of a job share the
     * cores, and the rank's own work is light beside the backend's: a quick start and little compiling matter more
     * than peak speed (the client compiler, one GC thread).
     */
    private List<String> command(Part.Job job) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xss16m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("collectives.")).sorted()
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Runner.class.getName(),
                RankCommand.NAME, "--job", job.label()));
        command.addAll(rankArguments);
        return command;
    }

    private void environment(Map<String, String> env, int n, int rank, Part.Job job, String rendezvous,
            String token) {
        env.keySet().removeIf(k -> INHERITED_NAMES.contains(k) || INHERITED_PREFIXES.stream().anyMatch(k::startsWith));
        env.put("COLLECTIVES_BACKEND", settings.backend());
        env.put("COLLECTIVES_RANK", String.valueOf(rank));
        env.put("COLLECTIVES_WORLD_SIZE", String.valueOf(n));
        env.put("COLLECTIVES_LOCAL_RANK", String.valueOf(rank));
        env.put("COLLECTIVES_LOCAL_SIZE", String.valueOf(n));
        env.put("COLLECTIVES_DEVICE", String.valueOf(rank % settings.devices()));
        env.put("COLLECTIVES_RENDEZVOUS", rendezvous);
        env.put("COLLECTIVES_JOB_TOKEN", token);
        if (n > settings.devices() && !SIM.equals(settings.backend())) {
            env.put("NCCL_HOSTID", "differential-rank-" + rank);
            env.putIfAbsent("NCCL_SOCKET_IFNAME", "lo");
        }
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

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
