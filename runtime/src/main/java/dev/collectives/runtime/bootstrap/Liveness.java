package dev.collectives.runtime.bootstrap;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * When a server last heard from each member it watches, and which have been silent past the heartbeat timeout. Any
 * message counts, heartbeats and the messages of operations alike. The clock is given, so that tests can move it.
 * Guarded by the server's lock.
 */
final class Liveness {
    private final long timeoutNanos;
    private final LongSupplier clock;
    /** When each member was last heard from, in the clock's nanoseconds; only where {@link #watched}. */
    private long[] lastHeard;

    private boolean[] watched;

    Liveness(int size, Duration timeout, LongSupplier clock) {
        this.timeoutNanos = timeout.toNanos();
        this.clock = clock;
        this.lastHeard = new long[size];
        this.watched = new boolean[size];
    }

    /** Makes room for {@code capacity} members: the ranks and the processes waiting to join. */
    void makeRoom(int capacity) {
        lastHeard = Arrays.copyOf(lastHeard, capacity);
        watched = Arrays.copyOf(watched, capacity);
    }

    /** Member {@code rank} was heard from now (it joined, or sent a message): it is watched from now on. */
    void heard(int rank) {
        lastHeard[rank] = clock.getAsLong();
        watched[rank] = true;
    }

    /** Member {@code rank} left, died or was excluded: its silence is no news any more. */
    void forget(int rank) {
        watched[rank] = false;
    }

    /** The watched members that nothing was heard from for longer than the timeout, lowest first. */
    List<Integer> silent() {
        long now = clock.getAsLong();
        List<Integer> silent = new ArrayList<>();
        for (int r = 0; r < watched.length; r++) {
            if (watched[r] && now - lastHeard[r] > timeoutNanos) {
                silent.add(r);
            }
        }
        return silent;
    }
}
