package dev.collectives.tools.faults;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.Runner;
import dev.collectives.examples.pipelines.Death;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.tools.LocalJob;
import dev.collectives.tools.trace.TraceCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The fault driver: for each rank count, registration mode and fault, one job of processes ({@link FaultRankCommand}
 * each) whose last rank commits the fault; the job is OK when every other rank's step failed, naming the culprit and
 * the cause ({@link Fault#named}); then, for each rank count and mode, the recoveries from a killed rank
 * ({@link RecoveryJobs}). The jobs run one after another, so that each has the host to itself.
 */
final class FaultJobs {
    private static final String SIM = "sim";
    /** The folder of a job's logs where its ranks write their flight records. */
    private static final String FLIGHT_RECORDS = "flight";

    /**
     * What to run, and where.
     *
     * @param backend     the backend of every job
     * @param ranks       the rank counts, in order
     * @param devices     the GPUs the processes share, round-robin
     * @param modes       the registration modes
     * @param faults      the faults
     * @param recoveries  the recoveries from a killed rank ({@link RecoveryJobs})
     * @param death       how the rank of each recovery job dies
     * @param logs        where each process's log goes
     * @param jobTimeout  how long the other ranks of a job may take to fail
     * @param simTimeout  on sim, how long a rank waits for the others in a call
     * @param syncTimeout on nccl and mccl, how long a synchronize waits before it aborts the communicator
     */
    record Settings(
            String backend,
            List<Integer> ranks,
            int devices,
            List<Registration> modes,
            List<Fault> faults,
            List<Recovery> recoveries,
            Death death,
            Path logs,
            Duration jobTimeout,
            Duration simTimeout,
            Duration syncTimeout) {}

    /**
     * How one rank other than the culprit ended.
     *
     * @param rank    its rank
     * @param status  its exit status; empty when it was stopped at the job timeout
     * @param failure what it printed when its step failed, if it did
     * @param log     its log
     */
    private record Survivor(int rank, OptionalInt status, Optional<String> failure, Path log) {
        boolean failedNaming(Fault fault, int culprit) {
            return status.equals(OptionalInt.of(FaultRankCommand.STEP_FAILED))
                    && failure.filter(line -> fault.named(line, culprit)).isPresent();
        }

        String describe(Duration jobTimeout) {
            String end = status.isPresent()
                    ? "exited with status " + status.getAsInt()
                    : "was stopped after " + jobTimeout.toSeconds() + " s";
            return "rank " + rank + " " + end + ": "
                    + failure.map(line -> line + " (log: " + log + ")")
                            .orElseGet(() -> "no failure printed" + LocalJob.logEnd(log));
        }
    }

    private final Settings settings;
    private final PrintStream out;

    FaultJobs(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    int run() {
        boolean sim = SIM.equals(settings.backend());
        out.println("faults: on " + settings.backend() + ", a process per rank"
                + (sim ? "" : ", sharing " + settings.devices() + " GPU(s) round-robin") + ", at "
                + settings.ranks().stream().map(String::valueOf).collect(Collectors.joining(", "))
                + " ranks; the culprit is the last rank; "
                + "logs in " + settings.logs().toAbsolutePath());
        List<String> summaries = new ArrayList<>();
        boolean allOk = true;
        for (int n : settings.ranks()) {
            out.println();
            out.println("== " + n + " ranks, culprit rank " + (n - 1));
            Map<Registration, Map<Fault, Boolean>> verdicts = new EnumMap<>(Registration.class);
            for (Registration mode : settings.modes()) {
                for (Fault fault : settings.faults()) {
                    boolean ok = runJob(n, mode, fault);
                    verdicts.computeIfAbsent(mode, m -> new EnumMap<>(Fault.class))
                            .put(fault, ok);
                    allOk &= ok;
                }
            }
            printTable(verdicts);
            summaries.add(summary(n, verdicts));
            if (!settings.recoveries().isEmpty()) {
                allOk &= runRecoveries(n, summaries);
            }
        }
        out.println();
        summaries.forEach(out::println);
        return allOk ? Runner.PASSED : Runner.FAILED;
    }

    /** The recoveries of a job of {@code n} ranks in every mode; whether each went as expected. */
    private boolean runRecoveries(int n, List<String> summaries) {
        out.println();
        Death death = settings.death();
        out.println("== " + n + " ranks, a rank "
                + (death == Death.HALT ? "killed in step 2" : death.fate() + " while it steps")
                + ", then "
                + settings.recoveries().stream()
                        .map(r -> r.label() + " (" + death.of(r.killed(n)) + ")")
                        .collect(Collectors.joining(" or ")));
        RecoveryJobs jobs = new RecoveryJobs(settings, out);
        Map<Recovery, List<Boolean>> verdicts = new EnumMap<>(Recovery.class);
        for (Registration mode : settings.modes()) {
            for (Recovery recovery : settings.recoveries()) {
                verdicts.computeIfAbsent(recovery, r -> new ArrayList<>())
                        .add(jobs.run(n, mode, recovery, jvmOptions()));
            }
        }
        summaries.add(RecoveryJobs.summary(n, settings.recoveries(), verdicts));
        return verdicts.values().stream().allMatch(oks -> !oks.contains(false));
    }

    /** On nccl and mccl, how long a synchronize waits. */
    private List<String> jvmOptions() {
        return SIM.equals(settings.backend())
                ? List.of()
                : List.of("-Dcollectives.device.syncTimeoutSeconds="
                        + settings.syncTimeout().toSeconds());
    }

    /** Runs one job and says how it went; whether every rank but the culprit failed naming it and the cause. */
    private boolean runJob(int n, Registration mode, Fault fault) {
        int culprit = n - 1;
        Path dir = settings.logs()
                .resolve(n + "-ranks")
                .resolve(mode.name().toLowerCase(Locale.ROOT))
                .resolve(fault.label());
        List<String> arguments = List.of(FaultRankCommand.NAME, "--mode", mode.name(), "--fault", fault.name());
        List<String> jvmOptions = jvmOptions();
        List<Survivor> survivors = new ArrayList<>();
        long start = System.nanoTime();
        Optional<String> notStarted = Optional.empty();
        try (LocalJob job = LocalJob.start(
                new LocalJob.Placement(settings.backend(), settings.devices(), "faults"),
                n,
                jvmOptions,
                arguments,
                r -> log(dir, r),
                (env, r) -> environment(env, fault, dir.resolve(FLIGHT_RECORDS)))) {
            long deadline = start + settings.jobTimeout().toNanos();
            for (int r = 0; r < culprit; r++) {
                OptionalInt status = job.awaitExit(r, deadline);
                survivors.add(new Survivor(r, status, failure(log(dir, r), r), log(dir, r)));
            }
        } catch (LocalJob.NotStarted e) {
            notStarted = Optional.of(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + fault.label() + " job", e);
        }
        if (notStarted.isPresent()) {
            out.printf(
                    Locale.ROOT,
                    "%s, %s, %d ranks: NOT OK in %.1f s: %s%n",
                    fault.label(),
                    mode,
                    n,
                    (System.nanoTime() - start) / 1e9,
                    notStarted.get());
            out.flush();
            return false;
        }
        Optional<String> traced = fault.traced() ? Optional.of(traced(dir.resolve(FLIGHT_RECORDS))) : Optional.empty();
        boolean ok = survivors.stream().allMatch(s -> s.failedNaming(fault, culprit))
                && traced.map(finding -> fault.tracedTo(finding, culprit)).orElse(true);
        out.printf(
                Locale.ROOT,
                "%s, %s, %d ranks: %s in %.1f s%s%n",
                fault.label(),
                mode,
                n,
                ok ? "OK" : "NOT OK",
                (System.nanoTime() - start) / 1e9,
                ok
                        ? ""
                        : ": expected every rank but " + culprit + " to fail with "
                                + fault.words(culprit).stream()
                                        .map(w -> "'" + w + "'")
                                        .collect(Collectors.joining(" and ")));
        traced.ifPresent(finding -> out.println("  trace: " + finding));
        if (!ok) {
            survivors.forEach(s -> out.println("  " + s.describe(settings.jobTimeout())));
            out.println("  rank " + culprit + " (the culprit): log " + log(dir, culprit));
        }
        out.flush();
        return ok;
    }

    /**
     * What {@code trace} finds first in the flight records the ranks wrote into {@code records}, or that it found
     * nothing.
     */
    private static String traced(Path records) {
        return TraceCommand.findings(records).stream().findFirst().orElse("the ranks' flight records agree");
    }

    /**
     * What the ranks of a job of {@code fault} need beside their place: the call checks, the sim's timeout, and the
     * directory their flight records go to.
     */
    private void environment(Map<String, String> env, Fault fault, Path records) {
        env.put(FlightRecorder.DIR_VARIABLE, records.toAbsolutePath().toString());
        if (fault.checksCalls()) {
            env.put(Fault.CHECK_VARIABLE, Fault.CHECK_CALLS);
        } else {
            env.remove(Fault.CHECK_VARIABLE);
        }
        if (SIM.equals(settings.backend())) {
            env.put("COLLECTIVES_SIM_TIMEOUT", settings.simTimeout().toMillis() + "ms");
        }
    }

    private static Path log(Path dir, int rank) {
        return dir.resolve("rank-" + rank + ".log");
    }

    /** The line rank {@code rank} printed when its step failed, if it did. */
    private static Optional<String> failure(Path log, int rank) {
        String prefix = String.format(Locale.ROOT, FaultRankCommand.FAILED, rank);
        try {
            return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith(prefix))
                    .findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
    }

    private void printTable(Map<Registration, Map<Fault, Boolean>> verdicts) {
        int width = "NOT OK".length();
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-6s", "mode"));
        settings.faults().forEach(f -> head.append(String.format(Locale.ROOT, " | %-" + width + "s", f.label())));
        out.println(head.toString().stripTrailing());
        for (Registration mode : settings.modes()) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-6s", mode));
            settings.faults()
                    .forEach(f -> row.append(String.format(
                            Locale.ROOT,
                            " | %-" + width + "s",
                            verdicts.get(mode).get(f) ? "OK" : "NOT OK")));
            out.println(row.toString().stripTrailing());
        }
    }

    /** {@code faults: N ranks: kill a/b, abort c/d, ... as expected}: per fault, the modes where it was OK. */
    private String summary(int n, Map<Registration, Map<Fault, Boolean>> verdicts) {
        String counts = settings.faults().stream()
                .map(f -> f.label() + " "
                        + verdicts.values().stream()
                                .filter(byFault -> byFault.get(f))
                                .count() + "/" + verdicts.size())
                .collect(Collectors.joining(", "));
        return "faults: " + n + " ranks: " + counts + " as expected";
    }
}
