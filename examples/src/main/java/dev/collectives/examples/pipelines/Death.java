package dev.collectives.examples.pipelines;

import dev.collectives.examples.LabelParser;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the doomed rank of {@link ShrinkRecoveryExample} dies. {@link #HALT}: it halts its own process as its step 2
 * begins, before it launches that step. {@link #KILL} and {@link #FREEZE}: every rank steps on, each step checked; once
 * the doomed rank has run {@link #READY_AFTER} steps it prints {@link #ready} (with its process id) and steps on, and
 * whoever drives the job picks a moment and sends that process {@code SIGKILL} (killed mid-step, while the others may
 * be inside a launched graph) or {@code SIGSTOP} (frozen: the survivors declare it dead when its heartbeats stop, and
 * the driver resumes it with {@code SIGCONT} once they did; its step then fails saying that it was excluded).
 */
public enum Death {
    HALT("killed"),
    KILL("killed with SIGKILL"),
    FREEZE("stopped with SIGSTOP");

    /** The steps the doomed rank runs before it says it may die ({@link #KILL}, {@link #FREEZE}). */
    public static final int READY_AFTER = 20;

    private static final Pattern READY =
            Pattern.compile("^ready to die: rank \\d+ ran \\d+ checked steps in process (\\d+)$", Pattern.MULTILINE);

    /** What became of the rank, after "rank N ". */
    private final String fate;

    Death(String fate) {
        this.fate = fate;
    }

    /** "halt", "kill", "freeze": as command lines and scripts name it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** What becomes of the rank: "killed", "killed with SIGKILL", "stopped with SIGSTOP". */
    public String fate() {
        return fate;
    }

    /** "rank 2 killed", "rank 2 killed with SIGKILL", "rank 2 stopped with SIGSTOP". */
    public String of(int rank) {
        return "rank " + rank + " " + fate;
    }

    /** Whether someone outside the process sends it a signal, once it said it is {@link #ready}. */
    public boolean fromOutside() {
        return this != HALT;
    }

    /** What the doomed rank prints once it ran {@link #READY_AFTER} steps, naming its process. */
    static String ready(int rank) {
        return "ready to die: rank " + rank + " ran " + READY_AFTER + " checked steps in process "
                + ProcessHandle.current().pid();
    }

    /** The process that a doomed rank's {@code log} says is ready to die, if it says so. */
    public static Optional<Long> readyProcess(String log) {
        Matcher m = READY.matcher(log);
        return m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }

    /** Reads a death by its {@link #label()}, in any case. */
    public static final class Parser extends LabelParser<Death> {
        public Parser() {
            super(values(), Death::label);
        }
    }
}
