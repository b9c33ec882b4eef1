package dev.collectives.runtime.bootstrap.wire;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.bootstrap.Rendezvous;

/**
 * What a member makes of the server's answer to an operation ({@link Channel#gathered}: every rank's value, or why
 * the rank is gone, which only an allgather of survivors allows). The server checks nothing of the values: every
 * member checks the same answer and so comes to the same verdict, which names the ranks at fault.
 */
public final class ServedOperations {
    private ServedOperations() {}

    /** Every rank's value of an allgather, each as long as this rank's. */
    public static byte[][] allGather(Rendezvous.Survivors all, int rank, String operation) {
        requireSameLength(all, rank, operation);
        return all.values();
    }

    /** The survivors' values of an allgather of survivors, each as long as this rank's, and why the others are gone. */
    public static Rendezvous.Survivors survivors(Rendezvous.Survivors all, int rank, String operation) {
        requireSameLength(all, rank, operation);
        return all;
    }

    /** The same verdict on every rank: the first rank whose value's length differs from the lowest rank's. */
    private static void requireSameLength(Rendezvous.Survivors all, int rank, String operation) {
        byte[][] values = all.values();
        int lowest = -1;
        for (int r = 0; r < values.length; r++) {
            if (values[r] == null) {
                continue;
            }
            if (lowest < 0) {
                lowest = r;
            } else if (values[r].length != values[lowest].length) {
                throw BootstrapException.failed(
                        rank,
                        "rank " + r + " contributed " + values[r].length + " bytes to " + operation + ", rank "
                                + lowest + " " + values[lowest].length
                                + " bytes (the ranks called it with different sizes)",
                        null);
            }
        }
    }
}
