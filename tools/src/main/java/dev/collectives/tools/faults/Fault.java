package dev.collectives.tools.faults;

import dev.collectives.examples.pipelines.ShrinkRecoveryExample;
import dev.collectives.runtime.Communicator;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntFunction;

/**
 * What the culprit rank of a fault job does at the fault step, and the words that every other rank's failure must
 * carry: the culprit's rank and the cause.
 */
public enum Fault {
    /** The culprit's process halts, as if killed. */
    KILL(culprit -> List.of("rank " + culprit, "is gone")),
    /** The culprit aborts its communicator. */
    ABORT(culprit -> List.of("rank " + culprit, "abort()")),
    /** The culprit never makes the call. */
    SILENT(culprit -> List.of("[" + culprit + "]", "did not arrive")),
    /** The culprit calls the step with another size; the job runs with its calls checked. */
    SHAPES(culprit -> List.of("[R14", "rank " + culprit + ":"));

    /** The variable that turns the per-call check of step arguments on where it is not always on. */
    static final String CHECK_VARIABLE = "COLLECTIVES_CHECK";

    static final String CHECK_CALLS = "calls";
    /** What the culprit does, for the help. */
    static final String KILL_DOES =
            "halts its process (exit status " + ShrinkRecoveryExample.HALTED + "), as if killed";

    static final String ABORT_DOES = "calls comm.abort(), then waits to be stopped";
    static final String SILENT_DOES = "stops calling and waits to be stopped: a rank that never calls";
    static final String SHAPES_DOES = "calls the step with n + 1 elements where the others give n, and every rank "
            + "checks its calls (" + CHECK_VARIABLE + "=" + CHECK_CALLS + ")";

    private final IntFunction<List<String>> words;

    Fault(IntFunction<List<String>> words) {
        this.words = words;
    }

    /** The fault's name on the command line and in the reports. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** What every other rank's failure must contain when the culprit is rank {@code culprit}. */
    List<String> words(int culprit) {
        return words.apply(culprit);
    }

    /** Whether {@code message} names the culprit and the cause. */
    boolean named(String message, int culprit) {
        return words(culprit).stream().allMatch(message::contains);
    }

    /** Whether {@code trace} on the ranks' flight records must name the culprit: it parts from the others. */
    boolean traced() {
        return this == SILENT || this == SHAPES;
    }

    /**
     * Whether {@code finding}, the first of {@code trace}, names the culprit: as the rank that never enqueued the
     * call the others did (silent), or among the ranks that called it with other sizes (shapes).
     */
    boolean tracedTo(String finding, int culprit) {
        return this == SILENT
                ? finding.startsWith("rank " + culprit + " never enqueued #")
                : finding.contains("called different operations or sizes") && finding.contains("rank " + culprit + " ");
    }

    /** Whether every rank of the job checks its calls' arguments. */
    boolean checksCalls() {
        return this == SHAPES;
    }

    /**
     * Commits the fault, saying so: halts, or aborts {@code comm} and waits, or waits, all without returning; or
     * returns the element count the culprit calls the step with, where the others give {@code n}.
     */
    long commit(int rank, int step, Communicator comm, long n, PrintStream out) {
        switch (this) {
            case KILL -> {
                say(out, "rank " + rank + " halts its process in step " + step);
                Runtime.getRuntime().halt(ShrinkRecoveryExample.HALTED);
            }
            case ABORT -> {
                comm.abort();
                say(out, "rank " + rank + " aborted its communicator in step " + step + "; waiting to be stopped");
            }
            case SILENT -> say(out, "rank " + rank + " does not call step " + step + "; waiting to be stopped");
            case SHAPES -> {
                say(
                        out,
                        "rank " + rank + " calls step " + step + " with " + (n + 1) + " elements, the others with "
                                + n);
                return n + 1;
            }
        }
        return waitToBeStopped();
    }

    private static void say(PrintStream out, String what) {
        out.println("fault: " + what);
        out.flush();
    }

    /** Waits on a latch that nobody counts down, until the driver stops this process. */
    private static long waitToBeStopped() {
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("interrupted while waiting to be stopped");
    }
}
