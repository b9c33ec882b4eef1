package dev.collectives.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The verdict of comparing what a rank read back from device memory with values computed on the host: OK with a
 * short account of what was compared, or the first wrong element with its expected and actual values. An OK check
 * keeps what was read back, each buffer under a name saying when ("recvbuff (iteration 2)"), so that the results of
 * one run can be compared with another's, element by element.
 */
public final class Check {
    private final boolean ok;
    private final String text;
    private final List<ReadBack> readBacks;

    private Check(boolean ok, String text, List<ReadBack> readBacks) {
        this.ok = ok;
        this.text = text;
        this.readBacks = List.copyOf(readBacks);
    }

    /**
     * What a rank read back from one buffer and found right.
     *
     * @param buffer the buffer's name, and when it was read
     * @param values the elements read
     */
    public record ReadBack(String buffer, float[] values) {
        ReadBack named(String name) {
            return new ReadBack(name, values);
        }
    }

    /** Everything compared matched; {@code what} says what was compared ("recvbuff[0, 3072)"). */
    public static Check ok(String what) {
        return new Check(true, what, List.of());
    }

    /** Everything compared matched, the elements of {@code buffer} being {@code values}. */
    static Check matched(String what, String buffer, float[] values) {
        return new Check(true, what, List.of(new ReadBack(buffer, values)));
    }

    /** The first element that differs. */
    public static Check mismatch(int rank, String buffer, long index, Object expected, Object actual) {
        return new Check(
                false,
                "rank " + rank + ": " + buffer + "[" + index + "] expected " + expected + " but was " + actual,
                List.of());
    }

    /** A property other than an element value that does not hold (an address, a pointer). */
    public static Check wrong(int rank, String what, Object expected, Object actual) {
        return new Check(
                false, "rank " + rank + ": " + what + " expected " + expected + " but was " + actual, List.of());
    }

    public boolean isOk() {
        return ok;
    }

    public String text() {
        return text;
    }

    /** What an OK check read back, in the order it was read; empty for a failing one. */
    public List<ReadBack> readBacks() {
        return readBacks;
    }

    /** A failing check names {@code context} ("in iteration 2"); a passing one is returned as it is. */
    public Check in(String context) {
        return ok ? this : new Check(false, text + " " + context, List.of());
    }

    /**
     * The same check told apart from others by {@code label}: an OK one says "label: ..." and names what it read
     * back "label: ...", a failing one ends "(label)".
     */
    public Check labelled(String label) {
        if (!ok) {
            return in("(" + label + ")");
        }
        return new Check(
                true,
                label + ": " + text,
                readBacks.stream().map(r -> r.named(label + ": " + r.buffer())).toList());
    }

    /** {@link #each} counting iterations. */
    public static Check eachIteration(int iterations, IntFunction<Check> iteration) {
        return each("iteration", iterations, iteration);
    }

    /**
     * Runs {@code round} for 1, 2, ... {@code rounds}; the first failing check is returned naming its round ("in
     * hop 2"), else an OK one saying every round compared what the last one did.
     */
    public static Check each(String roundName, int rounds, IntFunction<Check> round) {
        Check last = null;
        List<ReadBack> read = new ArrayList<>();
        for (int i = 1; i <= rounds; i++) {
            last = round.apply(i);
            if (!last.ok) {
                return last.in("in " + roundName + " " + i);
            }
            for (ReadBack r : last.readBacks) {
                read.add(r.named(r.buffer() + " (" + roundName + " " + i + ")"));
            }
        }
        return new Check(true, last.text + " in each of " + rounds + " " + roundName + "s", read);
    }

    /** The first failing check, or an OK one listing what all of them compared. */
    public static Check all(Check... checks) {
        StringBuilder compared = new StringBuilder();
        List<ReadBack> read = new ArrayList<>();
        for (Check c : checks) {
            if (!c.ok) {
                return c;
            }
            compared.append(compared.length() == 0 ? "" : "; ").append(c.text);
            read.addAll(c.readBacks);
        }
        return new Check(true, compared.toString(), read);
    }

    @Override
    public String toString() {
        return (ok ? "OK: " : "WRONG: ") + text;
    }
}
