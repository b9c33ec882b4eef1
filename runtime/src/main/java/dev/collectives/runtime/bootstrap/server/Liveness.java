package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Timeouts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * When a server last heard from each member it watches, and which have been silent past the heartbeat timeout (a
 * starting member, in its first {@link Timeouts#startupWindow()} after it was first heard from, past
 * {@link Timeouts#startupSilence()}: its young JVM's beats may come late on a busy machine). Any message counts,
 * heartbeats and the messages of operations alike. The members are kept in the order they were last heard from, the
 * starting ones apart from the others, so that finding the silent ones looks at those silent and the first one of
 * each order that is not, never at every member. The clock is given, so that tests can move it. Owned by the
 * server's loop thread.
 */
public final class Liveness {
    private final long timeoutNanos;
    private final long startupSilenceNanos;
    private final long startupWindowNanos;
    private final LongSupplier clock;
    /** When each watched member past its start was last heard from, in the clock's nanoseconds, least recent first. */
    private final LinkedHashMap<Integer, Long> lastHeard = new LinkedHashMap<>();
    /** The same for the members still starting. */
    private final LinkedHashMap<Integer, Long> lastHeardStarting = new LinkedHashMap<>();
    /** When each watched member was first heard from. */
    private final Map<Integer, Long> firstHeard = new HashMap<>();

    public Liveness(Timeouts timeouts, LongSupplier clock) {
        this.timeoutNanos = timeouts.heartbeat().toNanos();
        this.startupSilenceNanos = timeouts.startupSilence().toNanos();
        this.startupWindowNanos = timeouts.startupWindow().toNanos();
        this.clock = clock;
    }

    /** Member {@code rank} was heard from now (it joined, or sent a message): it is watched from now on. */
    public void heard(int rank) {
        long now = clock.getAsLong();
        long first = firstHeard.computeIfAbsent(rank, r -> now);
        lastHeard.remove(rank); // to the end of its order
        lastHeardStarting.remove(rank);
        (now - first < startupWindowNanos ? lastHeardStarting : lastHeard).put(rank, now);
    }

    /** Member {@code rank} left, died or was excluded: its silence is no news any more (a replacement starts anew). */
    public void forget(int rank) {
        lastHeard.remove(rank);
        lastHeardStarting.remove(rank);
        firstHeard.remove(rank);
    }

    /**
     * How long from now until the least recently heard member passes the timeout if nothing comes from it (zero if it
     * has), or empty when no member is watched: the server looks for silence then, not a beat interval later.
     */
    public Optional<Duration> untilNextSilence() {
        long now = clock.getAsLong();
        Optional<Long> left = Optional.empty();
        for (long due : List.of(nextDue(lastHeard, timeoutNanos), nextDue(lastHeardStarting, startupSilenceNanos))) {
            if (due != Long.MAX_VALUE) {
                long untilDue = Math.max(0, due - now);
                left = Optional.of(left.map(other -> Math.min(other, untilDue)).orElse(untilDue));
            }
        }
        return left.map(Duration::ofNanos);
    }

    /** When the least recently heard member of {@code order} passes {@code allowed} (just after), or never. */
    private static long nextDue(LinkedHashMap<Integer, Long> order, long allowed) {
        return order.isEmpty() ? Long.MAX_VALUE : order.values().iterator().next() + allowed + 1;
    }

    /**
     * The watched members that nothing was heard from for longer than the timeout, lowest first; each is reported once
     * (it is watched again only once it is heard from).
     */
    public List<Integer> silent() {
        long now = clock.getAsLong();
        List<Integer> silent = new ArrayList<>();
        takeSilent(lastHeard, timeoutNanos, now, silent);
        takeSilent(lastHeardStarting, startupSilenceNanos, now, silent);
        silent.forEach(firstHeard::remove);
        silent.sort(null);
        return silent;
    }

    private static void takeSilent(LinkedHashMap<Integer, Long> order, long allowed, long now, List<Integer> silent) {
        for (Iterator<Map.Entry<Integer, Long>> it = order.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Long> member = it.next();
            if (now - member.getValue() <= allowed) {
                return; // every member after it was heard from later
            }
            silent.add(member.getKey());
            it.remove();
        }
    }
}
