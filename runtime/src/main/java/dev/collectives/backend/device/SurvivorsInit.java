package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A shrink after a death, once the library's own shrink cannot serve (the communicator was aborted when the death
 * was seen, and the library refuses to shrink one whose peer died): the survivors form a new communicator through
 * the job's rendezvous. The rendezvous numbers the ranks as the job does, and every survivor of the job meets there,
 * so a child's ranks are told in the job's numbering ({@link JobRanks}): each survivor says which ranks of the job
 * the new communicator leaves out ({@link Rendezvous#allGatherOfSurvivors}: every survivor leaves out the same
 * ranks, and every rank that died is among them); the first survivor, in the communicator's order, makes a new
 * unique id ({@code GetUniqueId}) and shares it through the rendezvous; each calls {@code CommInitRank(Config)} with
 * its rank among the survivors, in the communicator's order. From the moment the id is shared the job is watched
 * again: a survivor that dies while the library forms the communicator ends every survivor's wait, naming it and the
 * death they recover from, within the time the job takes to declare it (a death before, during the survivors'
 * meeting, fails the meeting at once).
 */
final class SurvivorsInit {
    /**
     * The communicator formed: its handle, this rank's place in it, and when the survivors had agreed and shared the
     * unique id ({@link System#nanoTime()}; the library's init took the rest).
     */
    record Formed(long handle, int rank, int size, long agreedNanos) {}

    private SurvivorsInit() {}

    /**
     * The new communicator of rank {@code rank} of a communicator that holds {@code ranks} of the job, which leaves
     * {@code excluded} (ranks of that communicator) out, on {@code device}, made with {@code config}; the survivors
     * must all join it within {@code waits}' timeout, and {@code watch} tells of a death among them meanwhile.
     */
    static Formed form(
            NativeLibrary library,
            Rendezvous rendezvous,
            JobRanks ranks,
            BiFunction<JobRanks, String, JobWatch.Forming> watch,
            int rank,
            int[] excluded,
            int device,
            CommConfig config,
            Waits waits) {
        int[] kept = JobRanks.without(ranks.size(), excluded);
        BitSet leftOut = new BitSet(rendezvous.size());
        leftOut.set(0, rendezvous.size());
        Arrays.stream(kept).forEach(r -> leftOut.clear(ranks.jobRank(r)));
        Rendezvous.Survivors agreed = rendezvous.allGatherOfSurvivors(bitmap(leftOut, rendezvous.size()));
        requireAgreed(agreed, rank, ranks.jobRank(rank), leftOut);
        int first = ranks.jobRank(kept[0]);
        byte[] id = new byte[UniqueId.BYTES];
        if (rank == kept[0]) {
            try {
                library.check(library.api.getUniqueId(library.lib, id), rank, 0, "GetUniqueId");
            } catch (CollectivesException e) {
                rendezvous.abort(e.getMessage()); // the other survivors fail at once with the reason
                throw e;
            }
        }
        id = rendezvous.allGatherOfSurvivors(id).values()[first];
        int newRank = Arrays.binarySearch(kept, rank);
        library.checkRuntime(library.api.setDevice(library.lib, device), rank, "SetDevice");
        long idShared = System.nanoTime();
        String init = library.dialect.ccl("CommInitRank");
        try (JobWatch.Forming deaths = watch.apply(ranks.child(kept, "the survivors' communicator"), init)) {
            return new Formed(
                    config.initRank(
                            library, kept.length, id, newRank, waits, waits.syncTimeout(), deaths::requireNoDeath),
                    newRank,
                    kept.length,
                    idShared);
        }
    }

    /** One bit per rank of the job, set for those left out. */
    private static byte[] bitmap(BitSet leftOut, int jobSize) {
        return Arrays.copyOf(leftOut.toByteArray(), (jobSize + 7) / 8);
    }

    /**
     * Refuses unless every survivor leaves out what this rank does and every rank that died is left out: the
     * survivors would otherwise form communicators of different ranks, or wait for a dead one. Ranks are the job's.
     */
    private static void requireAgreed(Rendezvous.Survivors agreed, int rank, int jobRank, BitSet leftOut) {
        byte[] mine = agreed.values()[jobRank];
        List<String> problems = new ArrayList<>();
        for (int r = 0; r < agreed.values().length; r++) {
            byte[] theirs = agreed.values()[r];
            if (theirs != null && !Arrays.equals(theirs, mine)) {
                problems.add("rank " + r + " excludes " + Arrays.toString(ranksOf(theirs)));
            }
            if (theirs == null && !leftOut.get(r)) {
                problems.add("rank " + r + " is gone too (" + agreed.goneReasons()[r] + ")");
            }
        }
        if (!problems.isEmpty()) {
            throw CollectivesException.usage(
                    rank,
                    "shrink: the survivors do not agree on the ranks to leave out: this rank excludes "
                            + Arrays.toString(ranksOf(mine)) + ", but " + String.join("; ", problems)
                            + "; every survivor calls shrink with the same ranks, all of those that died");
        }
    }

    private static int[] ranksOf(byte[] bitmap) {
        return BitSet.valueOf(bitmap).stream().toArray();
    }
}
