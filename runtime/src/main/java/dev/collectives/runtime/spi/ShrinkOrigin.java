package dev.collectives.runtime.spi;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Where a shrink's child came from, in the same words on every backend: the parent's rank and size, the ranks left
 * out, and the path the backend took ({@code "by ncclCommShrink after ncclCommRevoke"}, {@code "formed anew among
 * the survivors through the job's rendezvous"}, {@code "by the sim's shrink"}). A backend logs it once, in one line,
 * when the child is made, and shows it where the child describes itself.
 *
 * @param parentRank the caller's rank in the parent
 * @param parentSize the parent's number of ranks
 * @param excluded   the ranks left out, sorted
 * @param path       how the child was made, in words that start with "by" or "formed"
 */
public record ShrinkOrigin(int parentRank, int parentSize, int[] excluded, String path) {
    private static final System.Logger LOG = System.getLogger("dev.collectives.recovery");

    /**
     * Logs the shrink in one line at INFO: {@code child} as it describes itself, which shows this origin ("shrink:
     * nccl rank 1/2 on device 0 (shrunk from rank 2 of 3 without rank 1, formed anew among the survivors through the
     * job's rendezvous)").
     */
    public void logFor(Object child) {
        LOG.log(System.Logger.Level.INFO, () -> "shrink: " + child);
    }

    /** "rank 1", "ranks 1, 3". */
    static String ranks(int[] ranks) {
        return (ranks.length == 1 ? "rank " : "ranks ")
                + Arrays.stream(ranks).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    }

    /** "shrunk from rank 2 of 3 without rank 1, formed anew among the survivors through the job's rendezvous" */
    @Override
    public String toString() {
        return "shrunk from rank " + parentRank + " of " + parentSize + " without " + ranks(excluded) + ", " + path;
    }
}
