package dev.collectives.tools.faults;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.pipelines.RecoveryPhases;
import dev.collectives.examples.pipelines.ShrinkRecoveryExample;
import dev.collectives.runtime.RendezvousServer;
import dev.collectives.tools.LocalJob;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The recoveries the fault driver proves: in a job of processes, a middle rank halts its process as its step 2
 * begins (the runner's {@code recovery}); the survivors shrink it away, or reform the job with a process the driver
 * starts in its place once every survivor's step 2 failed naming it. For {@link Recovery#RANK_0} rank 0 halts, and the
 * driver serves the job's rendezvous ({@link RendezvousServer}), which every rank joins. The job is OK when the killed
 * rank exited as killed and every other process ran its steps with the right sums after the recovery.
 */
final class RecoveryJobs {
    /** The steps every rank runs after the recovery. */
    static final int STEPS = 3;
    /** How often the driver looks whether the survivors' step 2 failed, before it starts a replacement. */
    private static final Duration LOOK_EVERY = Duration.ofMillis(100);

    /**
     * A process that must recover: its number in the job, who it is for messages, its rank and its log.
     */
    private record Expected(int process, String who, int rank, Path log) {}

    private final FaultJobs.Settings settings;
    private final PrintStream out;

    RecoveryJobs(FaultJobs.Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    /** Runs one job of {@code n} ranks in {@code mode} and says how it went; whether it recovered as expected. */
    boolean run(int n, Registration mode, Recovery recovery, List<String> jvmOptions) {
        int killed = recovery.killed(n);
        Path dir = settings.logs()
                .resolve(n + "-ranks")
                .resolve(mode.name().toLowerCase(Locale.ROOT))
                .resolve("recovery-" + recovery.label());
        List<String> arguments = new ArrayList<>(List.of(
                RecoveryRankCommand.NAME,
                "--kill",
                String.valueOf(killed),
                "--registration",
                mode.name(),
                "--steps",
                String.valueOf(STEPS)));
        if (recovery == Recovery.REPLACE) {
            arguments.add("--replace");
        }
        List<String> problems = new ArrayList<>();
        String phases = "";
        long start = System.nanoTime();
        long deadline = start + settings.jobTimeout().toNanos();
        try (LocalJob job = LocalJob.start(
                        new LocalJob.Placement(settings.backend(), settings.devices(), "recovery"),
                        n,
                        jvmOptions,
                        arguments,
                        r -> log(dir, r),
                        (env, r) -> environment(env, recovery));
                RendezvousServer server = recovery.servedApart() ? job.serveRendezvous() : null) {
            OptionalInt halted = job.awaitExit(killed, deadline);
            if (!halted.equals(OptionalInt.of(ShrinkRecoveryExample.HALTED))) {
                problems.add("rank " + killed + " " + ended(halted) + ", not " + ShrinkRecoveryExample.HALTED);
            }
            List<Integer> others = new ArrayList<>();
            List<Expected> expected = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                if (r != killed) {
                    others.add(r);
                    expected.add(new Expected(r, "rank " + r, r, log(dir, r)));
                }
            }
            if (recovery == Recovery.REPLACE) {
                if (awaitStepTwoFailed(others, dir, deadline)) {
                    Path replacementLog = dir.resolve("rank-" + killed + "-replacement.log");
                    int process = job.startReplacement(killed, replacementLog, env -> environment(env, recovery));
                    expected.add(new Expected(process, "the replacement of rank " + killed, killed, replacementLog));
                } else {
                    problems.add("the survivors' step 2 did not fail naming rank " + killed + " in time");
                }
            }
            for (Expected process : expected) {
                OptionalInt status = job.awaitExit(process.process(), deadline);
                String log = read(process.log());
                if (!status.equals(OptionalInt.of(0))) {
                    problems.add(process.who() + " " + ended(status) + LocalJob.logEnd(process.log()));
                } else if (!recovery.recovered(log, killed)
                        || !log.contains("\ncheck: OK on rank " + process.rank() + " ")) {
                    problems.add(
                            process.who() + " did not run its steps with the right sums (log: " + process.log() + ")");
                }
            }
            phases = slowest(expected, recovery, killed, dir);
        } catch (LocalJob.NotStarted e) {
            problems.add(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + recovery.label() + " job", e);
        }
        boolean ok = problems.isEmpty();
        out.printf(
                Locale.ROOT,
                "recovery: %s, %s, %d ranks, rank %d killed: %s in %.1f s%s%n",
                recovery.label(),
                mode,
                n,
                killed,
                ok ? "OK" : "NOT OK",
                (System.nanoTime() - start) / 1e9,
                ok ? "" : ": " + String.join("; ", problems));
        if (ok && !phases.isEmpty()) {
            out.println("  phases: " + phases);
        }
        out.flush();
        return ok;
    }

    /**
     * The phases of the survivor slowest from its failure to its first checked step, beside the death its killed
     * rank's log dates; with a replacement, its own start to bound too. Empty where no survivor printed them.
     */
    private static String slowest(List<Expected> expected, Recovery recovery, int killed, Path dir) {
        Optional<Long> death = RecoveryPhases.deathAt(read(log(dir, killed)));
        List<Expected> survivors =
                expected.stream().filter(process -> process.rank() != killed).toList();
        Map<Expected, RecoveryPhases> measured = new java.util.HashMap<>();
        survivors.forEach(process ->
                RecoveryPhases.parse(read(process.log())).ifPresent(phases -> measured.put(process, phases)));
        Optional<Expected> slowest = measured.keySet().stream()
                .max(Comparator.comparingLong(process -> measured.get(process).failureToFirstStep()));
        if (slowest.isEmpty()) {
            return "";
        }
        String replacement = expected.stream()
                .filter(process -> recovery == Recovery.REPLACE && process.rank() == killed)
                .map(process -> RecoveryPhases.replacementStartToBound(read(process.log())))
                .flatMap(Optional::stream)
                .map(ms -> "; the replacement's start -> bound " + ms + " ms")
                .findFirst()
                .orElse("");
        String among = survivors.size() == 1 ? "the only survivor" : "slowest of " + survivors.size() + " survivors";
        return slowest.get().who() + " (" + among + "): "
                + measured.get(slowest.get()).describe(death) + replacement;
    }

    /** What every process of a job of {@code recovery} needs beside its place. */
    private void environment(Map<String, String> env, Recovery recovery) {
        env.put("COLLECTIVES_SIM_TIMEOUT", settings.simTimeout().toMillis() + "ms");
        if (recovery.servedApart()) {
            env.put("COLLECTIVES_RENDEZVOUS_SERVER", "standalone");
        }
    }

    /** Waits until each of {@code ranks} printed that its step 2 failed: the job knows of the death by then. */
    private static boolean awaitStepTwoFailed(List<Integer> ranks, Path dir, long deadline)
            throws InterruptedException {
        for (int r : ranks) {
            while (!read(log(dir, r)).contains("\nstep 2 failed: ")) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(LOOK_EVERY.toMillis()); // the rank's log is a file another process writes
            }
        }
        return true;
    }

    /** {@code recovery: N ranks: shrink a/b, replace c/d as expected}: per recovery, the modes where it was OK. */
    static String summary(int n, List<Recovery> recoveries, Map<Recovery, List<Boolean>> verdicts) {
        return "recovery: " + n + " ranks: "
                + recoveries.stream()
                        .map(r -> r.label() + " "
                                + verdicts.get(r).stream().filter(ok -> ok).count() + "/"
                                + verdicts.get(r).size())
                        .collect(Collectors.joining(", "))
                + " as expected";
    }

    private static String ended(OptionalInt status) {
        return status.isPresent() ? "exited with status " + status.getAsInt() : "still ran at the job timeout";
    }

    private static Path log(Path dir, int rank) {
        return dir.resolve("rank-" + rank + ".log");
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
    }
}
