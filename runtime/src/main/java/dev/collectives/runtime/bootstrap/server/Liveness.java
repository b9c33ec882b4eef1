package dev.collectives.runtime.bootstrap.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * When a server last heard from each member it watches, and which have been silent past the heartbeat timeout. Any
 * message counts, heartbeats and the messages of operations alike. The members are kept in the order they were last
 * heard from, so that finding the silent ones looks at those silent and the first one that is not, never at every
 * member. The clock is given, so that tests can move it. Owned by the server's loop thread.
 */
public final class Liveness {
    private final long timeoutNanos;
    private final LongSupplier clock;
    /** When each watched member was last heard from, in the clock's nanoseconds, least recently heard first. */
    private final LinkedHashMap<Integer, Long> lastHeard = new LinkedHashMap<>();

    public Liveness(Duration timeout, LongSupplier clock) {
        this.timeoutNanos = timeout.toNanos();
        this.clock = clock;
    }

    /** Member {@code rank} was heard from now (it joined, or sent a message): it is watched from now on. */
    public void heard(int rank) {
        lastHeard.remove(rank); // to the end of the order
        lastHeard.put(rank, clock.getAsLong());
    }

    /** Member {@code rank} left, died or was excluded: its silence is no news any more. */
    public void forget(int rank) {
        lastHeard.remove(rank);
    }

    /**
     * How long from now until the least recently heard member passes the timeout if nothing comes from it (zero if it
     * has), or empty when no member is watched: the server looks for silence then, not a beat interval later.
     */
    public Optional<Duration> untilNextSilence() {
        if (lastHeard.isEmpty()) {
            return Optional.empty();
        }
        long oldest = lastHeard.values().iterator().next();
        long left = oldest + timeoutNanos + 1 - clock.getAsLong();
        return Optional.of(Duration.ofNanos(Math.max(0, left)));
    }

    /**
     * The watched members that nothing was heard from for longer than the timeout, lowest first; each is reported once
     * (it is watched again only once it is heard from).
     */
    public List<Integer> silent() {
        long now = clock.getAsLong();
        List<Integer> silent = new ArrayList<>();
        for (Iterator<Map.Entry<Integer, Long>> it = lastHeard.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Long> member = it.next();
            if (now - member.getValue() <= timeoutNanos) {
                break; // every member after it was heard from later
            }
            silent.add(member.getKey());
            it.remove();
        }
        silent.sort(null);
        return silent;
    }
}
