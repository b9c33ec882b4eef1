package dev.collectives.runtime.bootstrap;

import java.time.Duration;

/** A point in (monotonic) time that a bootstrap step must finish by; socket timeouts are taken from it. */
public final class Deadline {
    private final long endNanos;
    private final Duration total;

    private Deadline(Duration total, long endNanos) {
        this.total = total;
        this.endNanos = endNanos;
    }

    public static Deadline after(Duration total) {
        return new Deadline(total, System.nanoTime() + total.toNanos());
    }

    /** The same deadline, {@code grace} later (its description still names the original total). */
    public Deadline extendedBy(Duration grace) {
        return new Deadline(total, endNanos + grace.toNanos());
    }

    /** How long it was set for. */
    public Duration total() {
        return total;
    }

    public boolean expired() {
        return remainingMillis() <= 0;
    }

    public long remainingMillis() {
        return Math.max(0, (endNanos - System.nanoTime()) / 1_000_000);
    }

    /** A socket timeout for the time left: at least 1 ms, since 0 would mean "wait forever". */
    public int timeoutMillis() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, remainingMillis()));
    }

    /** "within 2 s" */
    public String within() {
        return "within " + Settings.formatDuration(total);
    }
}
