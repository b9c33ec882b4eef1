package dev.collectives.runtime.spi;

import dev.collectives.runtime.Communicator;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A rank's recoveries, each one JFR {@code dev.collectives.Recovery} event committed when the recovery ends: when the
 * first pipeline is bound on the new communicator (or fails to bind), when the new communicator closes before any
 * bind, or when the recovery itself fails. The event carries its kind, its outcome and the phases this rank knows:
 * when it heard of the failure (its communicator was aborted), heard → new communicator, new communicator → bound.
 * With JFR not recording the event, a recovery costs one check of a flag.
 */
public final class Recoveries {
    /** How a communicator recovers. */
    public enum Kind {
        /** {@link Communicator#shrink}: the survivors go on without the excluded ranks. */
        SHRINK("shrink"),
        /** {@link Communicator#reform}: the survivors take in processes started in the dead ranks' places. */
        REPLACE("replace"),
        /** {@link Communicator#grow}: the ranks take in processes started to join the job. */
        GROW("grow");

        /** As the event shows it. */
        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** What was recovered on this rank and waits for its first bind; forgotten with the communicator. */
    private static final Map<Communicator, FlightEvents.RecoveryEvent> AWAITING_BIND =
            Collections.synchronizedMap(new WeakHashMap<>());

    private Recoveries() {}

    /**
     * Runs {@code recovery} of {@code kind} by rank {@code rank} of {@code from}, a communicator of {@code size}
     * ranks that leaves out {@code excluded} (none for a replacement); {@code heardNanos} is when the rank heard of
     * the failure ({@link System#nanoTime()}, or 0 where it heard of none). Returns the new communicator, whose
     * first bind ends the recovery; a failure ends it at once, failed, and is thrown.
     */
    public static <C extends Communicator> C recover(
            Kind kind, int rank, int size, int[] excluded, long heardNanos, Supplier<C> recovery) {
        FlightEvents.RecoveryEvent event = new FlightEvents.RecoveryEvent();
        if (!event.isEnabled()) {
            return recovery.get();
        }
        event.begin();
        event.kind = kind.label;
        event.rank = rank;
        event.ranks = size;
        event.excluded = Arrays.toString(excluded);
        long start = heardNanos == 0 ? System.nanoTime() : heardNanos;
        if (heardNanos != 0) {
            event.heardAt = System.currentTimeMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - heardNanos);
        }
        C formed;
        try {
            formed = recovery.get();
        } catch (RuntimeException | Error failure) {
            event.heardToCommunicator = System.nanoTime() - start;
            end(event, failure.getMessage());
            throw failure;
        }
        event.formedNanos = System.nanoTime();
        event.heardToCommunicator = event.formedNanos - start;
        event.newRanks = formed.size();
        AWAITING_BIND.put(formed, event);
        return formed;
    }

    /**
     * A pipeline was bound on {@code comm} ({@code failure} null), or failed to bind: where {@code comm} came from a
     * recovery, that recovery ends.
     */
    public static void bound(Communicator comm, Throwable failure) {
        FlightEvents.RecoveryEvent event = AWAITING_BIND.isEmpty() ? null : AWAITING_BIND.remove(comm);
        if (event != null) {
            event.bound = true;
            event.communicatorToBound = System.nanoTime() - event.formedNanos;
            end(event, failure == null ? null : "bind failed: " + failure.getMessage());
        }
    }

    /** {@code comm} closes: a recovery that made it and saw no bind ends, recovered, its bind phase unknown. */
    public static void closed(Communicator comm) {
        FlightEvents.RecoveryEvent event = AWAITING_BIND.isEmpty() ? null : AWAITING_BIND.remove(comm);
        if (event != null) {
            end(event, null);
        }
    }

    private static void end(FlightEvents.RecoveryEvent event, String failure) {
        event.outcome = failure == null ? "recovered" : "failed";
        event.failure = failure;
        event.commit();
    }
}
