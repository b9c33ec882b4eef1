package dev.collectives.examples;

import java.util.function.IntFunction;

/**
 * The verdict of comparing what a rank read back from device memory with values computed on the host: OK with a
 * short account of what was compared, or the first wrong element with its expected and actual values.
 */
public final class Check {
    private final boolean ok;
    private final String text;

    private Check(boolean ok, String text) {
        this.ok = ok;
        this.text = text;
    }

    /** Everything compared matched; {@code what} says what was compared ("recvbuff[0, 3072)"). */
    public static Check ok(String what) {
        return new Check(true, what);
    }

    /** The first element that differs. */
    public static Check mismatch(int rank, String buffer, long index, Object expected, Object actual) {
        return new Check(false, "rank " + rank + ": " + buffer + "[" + index + "] expected " + expected + " but was "
                + actual);
    }

    /** A property other than an element value that does not hold (an address, a pointer). */
    public static Check wrong(int rank, String what, Object expected, Object actual) {
        return new Check(false, "rank " + rank + ": " + what + " expected " + expected + " but was " + actual);
    }

    public boolean isOk() {
        return ok;
    }

    public String text() {
        return text;
    }

    /** A failing check names {@code context} ("in iteration 2"); a passing one is returned as it is. */
    public Check in(String context) {
        return ok ? this : new Check(false, text + " " + context);
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
        for (int i = 1; i <= rounds; i++) {
            last = round.apply(i);
            if (!last.ok) {
                return last.in("in " + roundName + " " + i);
            }
        }
        return ok(last.text + " in each of " + rounds + " " + roundName + "s");
    }

    /** The first failing check, or an OK one listing what all of them compared. */
    public static Check all(Check... checks) {
        StringBuilder compared = new StringBuilder();
        for (Check c : checks) {
            if (!c.ok) {
                return c;
            }
            compared.append(compared.length() == 0 ? "" : "; ").append(c.text);
        }
        return ok(compared.toString());
    }

    @Override
    public String toString() {
        return (ok ? "OK: " : "WRONG: ") + text;
    }
}
