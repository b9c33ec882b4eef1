package dev.collectives.tools.faults;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.Runner;
import dev.collectives.examples.pipelines.Death;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The recoveries the fault driver proves: in a job of processes, a middle rank dies as {@link Death} says (the
 * runner's {@code recovery --death}): it halts its process as its step 2 begins, or, once it says it is ready to die,
 * the driver sends it {@code SIGKILL} or {@code SIGSTOP} at a random moment; the survivors shrink it away, or reform
 * the job with a process the driver starts in its place once every survivor's step failed naming it. A frozen rank is
 * resumed ({@code SIGCONT}) once every survivor's step failed, and must fail saying it was excluded. For
 * {@link Recovery#RANK_0} rank 0 dies, and the driver serves the job's rendezvous ({@link RendezvousServer}), which
 * every rank joins. The job is OK when the dead rank ended as its death says and every other process ran its steps
 * with the right sums after the recovery.
 */
final class RecoveryJobs {
    /** The steps every rank runs after the recovery. */
    static final int STEPS = 3;
    /** How often the driver looks at a log that another process writes (a step failed, a rank ready to die). */
    private static final Duration LOOK_EVERY = Duration.ofMillis(100);
    /**
     * The heartbeat timeout of a job whose rank freezes: short, so that the jobs are quick; long enough that no living
     * rank misses it on a busy host.
     */
    static final int FREEZE_HEARTBEAT_SECONDS = 4;
    /** On sim, how long a call waits for the others in a job whose rank freezes: well past the heartbeat timeout. */
    private static final Duration FREEZE_SIM_TIMEOUT = Duration.ofSeconds(60);
    /** The moment of a death from outside is drawn from this long after the rank said it is ready. */
    private static final int DEATH_SPREAD_MILLIS = 300;
    /** What a survivor prints when its step failed for the death. */
    private static final Pattern STEP_FAILED = Pattern.compile("^step \\d+ failed: ", Pattern.MULTILINE);
    /** What a frozen rank's failure says once it runs again. */
    private static final String EXCLUDED = "was excluded from the job";

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
        Death death = settings.death();
        Path dir = settings.logs()
                .resolve(n + "-ranks")
                .resolve(mode.name().toLowerCase(Locale.ROOT))
                .resolve("recovery-" + recovery.label());
        List<String> arguments = new ArrayList<>(List.of(
                RecoveryRankCommand.NAME,
                "--kill",
                String.valueOf(killed),
                "--death",
                death.label(),
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
                RendezvousServer server = recovery.servedApart() ? job.serveRendezvous(heartbeatTimeout()) : null) {
            Optional<Long> deathAt = death.fromOutside() ? strike(job, killed, dir, deadline) : Optional.empty();
            if (death.fromOutside() && deathAt.isEmpty()) {
                problems.add("rank " + killed + " never said it was ready to die" + LocalJob.logEnd(log(dir, killed)));
            }
            if (death != Death.FREEZE) {
                OptionalInt halted = job.awaitExit(killed, deadline);
                if (!halted.equals(OptionalInt.of(ShrinkRecoveryExample.HALTED))) {
                    problems.add("rank " + killed + " " + ended(halted) + ", not " + ShrinkRecoveryExample.HALTED);
                }
            }
            List<Integer> others = new ArrayList<>();
            List<Expected> expected = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                if (r != killed) {
                    others.add(r);
                    expected.add(new Expected(r, "rank " + r, r, log(dir, r)));
                }
            }
            boolean told = true;
            if (recovery == Recovery.REPLACE || death == Death.FREEZE) {
                told = awaitStepFailed(others, dir, deadline);
                if (!told) {
                    problems.add("the survivors' step did not fail naming rank " + killed + " in time");
                }
            }
            if (death == Death.FREEZE) {
                if (told) {
                    job.signal(killed, "CONT");
                }
                problems.addAll(excluded(job, killed, dir, deadline));
            }
            if (recovery == Recovery.REPLACE && told) {
                Path replacementLog = dir.resolve("rank-" + killed + "-replacement.log");
                int process = job.startReplacement(killed, replacementLog, env -> environment(env, recovery));
                expected.add(new Expected(process, "the replacement of rank " + killed, killed, replacementLog));
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
            Optional<Long> died = death.fromOutside() ? deathAt : RecoveryPhases.deathAt(read(log(dir, killed)));
            phases = slowest(expected, recovery, killed, died);
            if (death == Death.FREEZE && deathAt.isPresent()) {
                phases += stopToFailure(expected, killed, deathAt.get());
            }
        } catch (LocalJob.NotStarted e) {
            problems.add(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + recovery.label() + " job", e);
        }
        boolean ok = problems.isEmpty();
        out.printf(
                Locale.ROOT,
                "recovery: %s, %s, %d ranks, %s: %s in %.1f s%s%n",
                recovery.label(),
                mode,
                n,
                death.of(killed),
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
     * Once rank {@code killed} says it is ready to die, waits a random moment (up to {@value #DEATH_SPREAD_MILLIS} ms,
     * so that it dies mid-step, the others perhaps inside a launched graph) and sends it the death's signal; when, in
     * milliseconds since the epoch, or empty where it never said it was ready.
     */
    private Optional<Long> strike(LocalJob job, int killed, Path dir, long deadline) throws InterruptedException {
        while (Death.readyProcess(read(log(dir, killed))).isEmpty()) {
            if (System.nanoTime() > deadline || !job.process(killed).isAlive()) {
                return Optional.empty();
            }
            Thread.sleep(LOOK_EVERY.toMillis()); // the rank's log is a file another process writes
        }
        Thread.sleep(ThreadLocalRandom.current().nextInt(DEATH_SPREAD_MILLIS)); // a moment no rank knows
        long at = System.currentTimeMillis();
        job.signal(killed, settings.death() == Death.KILL ? "KILL" : "STOP");
        return Optional.of(at);
    }

    /** What went wrong with the frozen rank {@code killed}, resumed: it must fail saying it was excluded. */
    private static List<String> excluded(LocalJob job, int killed, Path dir, long deadline)
            throws InterruptedException {
        OptionalInt status = job.awaitExit(killed, deadline);
        String log = read(log(dir, killed));
        if (!status.equals(OptionalInt.of(Runner.FAILED)) || !log.contains(EXCLUDED)) {
            return List.of("rank " + killed + ", resumed, " + ended(status) + " without saying it " + EXCLUDED
                    + LocalJob.logEnd(log(dir, killed)));
        }
        return List.of();
    }

    /** Each survivor's time from the stop at {@code stoppedAt} to its failure: "; stop -> failure: rank 0 4012 ms, …". */
    private static String stopToFailure(List<Expected> expected, int killed, long stoppedAt) {
        return expected.stream()
                .filter(process -> process.rank() != killed)
                .flatMap(process -> RecoveryPhases.parse(read(process.log())).stream()
                        .map(phases -> process.who() + " " + (phases.heardAt() - stoppedAt) + " ms"))
                .collect(Collectors.joining(", ", "; stop -> failure: ", ""));
    }

    /**
     * The phases of the survivor slowest from its failure to its first checked step, beside the {@code death} (in
     * milliseconds since the epoch, where known); with a replacement, its own start to bound too. Empty where no survivor printed them.
     */
    private static String slowest(List<Expected> expected, Recovery recovery, int killed, Optional<Long> death) {
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
        Duration simTimeout = settings.simTimeout();
        if (settings.death() == Death.FREEZE) {
            env.put("COLLECTIVES_HEARTBEAT_TIMEOUT", FREEZE_HEARTBEAT_SECONDS + "s");
            simTimeout = simTimeout.compareTo(FREEZE_SIM_TIMEOUT) > 0 ? simTimeout : FREEZE_SIM_TIMEOUT;
        }
        env.put("COLLECTIVES_SIM_TIMEOUT", simTimeout.toMillis() + "ms");
        if (recovery.servedApart()) {
            env.put("COLLECTIVES_RENDEZVOUS_SERVER", "standalone");
        }
    }

    /** The heartbeat timeout of the rendezvous the driver serves: the library's default, but for a freeze. */
    private Duration heartbeatTimeout() {
        return settings.death() == Death.FREEZE
                ? Duration.ofSeconds(FREEZE_HEARTBEAT_SECONDS)
                : RendezvousServer.DEFAULT_HEARTBEAT_TIMEOUT;
    }

    /** Waits until each of {@code ranks} printed that its step failed: the job knows of the death by then. */
    private static boolean awaitStepFailed(List<Integer> ranks, Path dir, long deadline) throws InterruptedException {
        for (int r : ranks) {
            while (!STEP_FAILED.matcher(read(log(dir, r))).find()) {
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
