package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.UniqueId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A shrink after a death, once the library's own shrink cannot serve (the communicator was aborted when the death
 * was seen, and the library refuses to shrink one whose peer died): the survivors form a new communicator through
 * the job's rendezvous. They agree on who is left ({@link Rendezvous#allGatherOfSurvivors}: every survivor excludes
 * the same ranks, and every rank that died is among them); the lowest survivor makes a new unique id
 * ({@code GetUniqueId}) and shares it through the rendezvous; each calls {@code CommInitRank(Config)} with its rank
 * among the survivors, in the parent's order.
 */
final class SurvivorsInit {
    /** The communicator formed: its handle, and this rank's place in it. */
    record Formed(long handle, int rank, int size) {}

    private SurvivorsInit() {}

    /**
     * The new communicator of rank {@code rank} of {@code size} that leaves {@code excluded} out, on {@code device},
     * made with {@code config}.
     */
    static Formed form(
            NativeLibrary library,
            Rendezvous rendezvous,
            int rank,
            int size,
            int[] excluded,
            int device,
            CommConfig config) {
        Rendezvous.Survivors agreed = rendezvous.allGatherOfSurvivors(bitmap(excluded, size));
        requireAgreed(agreed, rank, excluded);
        int[] survivors =
                IntStream.range(0, size).filter(r -> agreed.values()[r] != null).toArray();
        byte[] id = new byte[UniqueId.BYTES];
        if (rank == survivors[0]) {
            try {
                library.check(library.api.getUniqueId(library.lib, id), rank, 0, "GetUniqueId");
            } catch (CollectivesException e) {
                rendezvous.abort(e.getMessage()); // the other survivors fail at once with the reason
                throw e;
            }
        }
        id = rendezvous.allGatherOfSurvivors(id).values()[survivors[0]];
        int newRank = Arrays.binarySearch(survivors, rank);
        library.checkRuntime(library.api.setDevice(library.lib, device), rank, "SetDevice");
        return new Formed(config.initRank(library, survivors.length, id, newRank), newRank, survivors.length);
    }

    /** One bit per rank of the parent, set for the excluded ones. */
    private static byte[] bitmap(int[] excluded, int size) {
        BitSet bits = new BitSet(size);
        Arrays.stream(excluded).forEach(bits::set);
        return Arrays.copyOf(bits.toByteArray(), (size + 7) / 8);
    }

    /**
     * Refuses unless every survivor excludes what this rank does and every rank that died is excluded: the
     * survivors would otherwise form communicators of different ranks, or wait for a dead one.
     */
    private static void requireAgreed(Rendezvous.Survivors agreed, int rank, int[] excluded) {
        byte[] mine = agreed.values()[rank];
        List<String> problems = new ArrayList<>();
        for (int r = 0; r < agreed.values().length; r++) {
            byte[] theirs = agreed.values()[r];
            if (theirs != null && !Arrays.equals(theirs, mine)) {
                problems.add("rank " + r + " excludes " + Arrays.toString(ranksOf(theirs)));
            }
            if (theirs == null && Arrays.binarySearch(excluded, r) < 0) {
                problems.add("rank " + r + " is gone too (" + agreed.goneReasons()[r] + ")");
            }
        }
        if (!problems.isEmpty()) {
            throw CollectivesException.usage(
                    rank,
                    "shrink: the survivors do not agree on the ranks to leave out: this rank excludes "
                            + Arrays.toString(excluded) + ", but " + String.join("; ", problems)
                            + "; every survivor calls shrink with the same ranks, all of those that died");
        }
    }

    private static int[] ranksOf(byte[] bitmap) {
        return BitSet.valueOf(bitmap).stream().toArray();
    }
}
