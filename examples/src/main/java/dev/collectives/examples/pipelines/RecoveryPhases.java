package dev.collectives.examples.pipelines;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The phases of one rank's recovery in {@link ShrinkRecoveryExample}, as the rank measures them and prints them in one
 * line ({@link #line}) that a driver reads back ({@link #parse}): when its call failed naming the death (the moment
 * it heard, in milliseconds since the epoch, so that a driver lines it up with the moment of the death on the same
 * host), heard → new communicator, → bound, → first checked step, beside this process's own start → first bound.
 *
 * @param heardAt when the rank's call failed naming the death, in milliseconds since the epoch
 * @param toCommunicator milliseconds from then to the new communicator ({@code shrink} or {@code reform} returned)
 * @param toBound milliseconds from the new communicator to the pipeline bound on it
 * @param toFirstStep milliseconds from the bind to the end of the first checked step on it
 * @param startToBound milliseconds from this process's start to its first bind's end: a fresh join and bind
 */
public record RecoveryPhases(long heardAt, long toCommunicator, long toBound, long toFirstStep, long startToBound) {
    private static final Pattern LINE = Pattern.compile(
            "^phases: heard at (\\d+) ms since the epoch; heard -> new communicator (\\d+) ms, -> bound (\\d+) ms,"
                    + " -> first checked step (\\d+) ms; this process's start -> bound (\\d+) ms$",
            Pattern.MULTILINE);
    private static final Pattern DEATH = Pattern.compile(
            "^halting rank \\d+ as its step 2 begins, at (\\d+) ms since the epoch$", Pattern.MULTILINE);

    private static final Pattern NEW_PROCESS_BOUND =
            Pattern.compile("^(?:replacement|joiner): this process's start -> bound (\\d+) ms$", Pattern.MULTILINE);

    private static final Pattern JOINER_BOUND =
            Pattern.compile("^joiner \\d+: joiner: this process's start -> bound (\\d+) ms$", Pattern.MULTILINE);

    /**
     * What a new process prints once its pipeline is bound: {@code who} is "replacement" (of the dead rank) or
     * "joiner" (a process that joined at a growth).
     */
    static String newProcessBound(String who) {
        return who + ": this process's start -> bound " + sinceProcessStart() + " ms";
    }

    /**
     * Each start → bound in milliseconds that the processes that joined a growth printed into {@code log}, rank 0's
     * (where their lines start with "joiner N: "), in the order they appear.
     */
    public static List<Long> newProcessesStartToBound(String log) {
        Matcher m = JOINER_BOUND.matcher(log);
        List<Long> found = new ArrayList<>();
        while (m.find()) {
            found.add(Long.parseLong(m.group(1)));
        }
        return found;
    }

    /** A replacement's or joiner's start → bound in milliseconds, as its {@code log} says, if it does. */
    public static Optional<Long> replacementStartToBound(String log) {
        Matcher m = NEW_PROCESS_BOUND.matcher(log);
        return m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }

    /** What the doomed rank prints as it halts, with the moment of its death. */
    static String halting(int rank) {
        return "halting rank " + rank + " as its step 2 begins, at " + System.currentTimeMillis()
                + " ms since the epoch";
    }

    /** Milliseconds from this process's start (its JVM's) to now. */
    static long sinceProcessStart() {
        return System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    }

    /** The line the rank prints. */
    public String line() {
        return "phases: heard at " + heardAt + " ms since the epoch; heard -> new communicator " + toCommunicator
                + " ms, -> bound " + toBound + " ms, -> first checked step " + toFirstStep
                + " ms; this process's start -> bound " + startToBound + " ms";
    }

    /** From the call's failure to the first checked step after the recovery, in milliseconds. */
    public long failureToFirstStep() {
        return toCommunicator + toBound + toFirstStep;
    }

    /**
     * The phases beside the death at {@code deathAt} (milliseconds since the epoch, or empty where unknown), in
     * words: "death → heard 25 ms, heard → new communicator 40 ms, …".
     */
    public String describe(Optional<Long> deathAt) {
        return String.format(
                Locale.ROOT,
                "death -> heard %s, heard -> new communicator %d ms, -> bound %d ms, -> first checked step %d ms"
                        + " (failure -> first step %d ms); start -> bound %d ms",
                deathAt.map(death -> (heardAt - death) + " ms").orElse("?"),
                toCommunicator,
                toBound,
                toFirstStep,
                failureToFirstStep(),
                startToBound);
    }

    /** The phases a rank's {@code log} printed, if it did. */
    public static Optional<RecoveryPhases> parse(String log) {
        Matcher m = LINE.matcher(log);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new RecoveryPhases(
                Long.parseLong(m.group(1)),
                Long.parseLong(m.group(2)),
                Long.parseLong(m.group(3)),
                Long.parseLong(m.group(4)),
                Long.parseLong(m.group(5))));
    }

    /** When the doomed rank's {@code log} says it halted, in milliseconds since the epoch, if it does. */
    public static Optional<Long> deathAt(String log) {
        Matcher m = DEATH.matcher(log);
        return m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }
}
