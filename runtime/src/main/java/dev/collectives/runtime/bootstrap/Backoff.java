package dev.collectives.runtime.bootstrap;

/**
 * The pauses between attempts to reach what may not be there yet (rank 0, a rendezvous file): short at first, so
 * that ranks started together meet at once, then doubling up to a cap, so that a long wait does not busy the
 * network or the file system; never past the deadline.
 */
public final class Backoff {
    private final Deadline deadline;
    private final long longestMillis;
    private long pauseMillis;

    public Backoff(Deadline deadline, long firstMillis, long longestMillis) {
        this.deadline = deadline;
        this.pauseMillis = firstMillis;
        this.longestMillis = longestMillis;
    }

    /** Waits the current pause, then doubles it (up to the cap) for the next attempt. */
    public void pause() {
        pauseWithoutGrowing();
        pauseMillis = Math.min(2 * pauseMillis, longestMillis);
    }

    /** Waits the current pause and keeps it for the next attempt. */
    public void pauseWithoutGrowing() {
        try {
            Thread.sleep(Math.max(1, Math.min(pauseMillis, deadline.remainingMillis())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the bootstrap", e);
        }
    }
}
