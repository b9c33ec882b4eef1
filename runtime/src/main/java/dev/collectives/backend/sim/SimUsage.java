package dev.collectives.backend.sim;

/**
 * Live resources of a simulated cluster, summed over its ranks: what tests check to be zero after close.
 *
 * @param allocations   root allocations not yet freed
 * @param registrations local registrations (registration-cache entries) not yet deregistered
 * @param windows       per-rank windows not yet deregistered
 * @param graphs        captured graphs not yet destroyed
 * @param graphExecs    instantiated graphs not yet destroyed
 */
public record SimUsage(int allocations, int registrations, int windows, int graphs, int graphExecs) {
    /** Whether nothing is in use. */
    public boolean isZero() {
        return allocations == 0 && registrations == 0 && windows == 0 && graphs == 0 && graphExecs == 0;
    }
}
