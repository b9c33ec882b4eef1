package dev.collectives.runtime.spi;

import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The ranks of a job of processes (numbered as they met at the job's rendezvous) that one communicator holds, in
 * the communicator's order, and how it came to number them (a split, a shrink), so that a failure of the job that
 * names ranks of the job reads the same on every backend in every communicator it concerns: "rank 3 of the job
 * (rank 1 of this communicator, split with color 1) at /10.0.0.4:41000 is gone: its connection ended while the job
 * ran". The job's own communicator, and any that numbers its ranks as the job does, shows the failure as the job
 * told it.
 */
public final class JobRanks {
    /** The job's rank of each of the communicator's ranks. */
    private final int[] ranks;
    /** How the communicator came to number its ranks, for messages ("split with color 1"); null for the job's. */
    private final String origin;
    /** Whether a split made it or one it descends from: it holds a part of the job that the job cannot grow. */
    private final boolean madeBySplit;

    private JobRanks(int[] ranks, String origin, boolean madeBySplit) {
        this.ranks = ranks;
        this.origin = origin;
        this.madeBySplit = madeBySplit;
    }

    /** A communicator of every rank of a job of {@code size}, numbered as the job. */
    public static JobRanks ofJob(int size) {
        return new JobRanks(IntStream.range(0, size).toArray(), null, false);
    }

    /**
     * The communicator that the live ranks of a job of {@code jobSize} numbers formed when it grew: they are
     * {@code live} (the job's numbers, in order), without those of ranks that died before ("grown without the job's
     * rank 2"), and numbered as the job where none did.
     */
    public static JobRanks grown(int[] live, int jobSize) {
        if (live.length == jobSize) {
            return ofJob(jobSize);
        }
        int[] gone = IntStream.range(0, jobSize)
                .filter(r -> Arrays.binarySearch(live, r) < 0)
                .toArray();
        return new JobRanks(live.clone(), "grown without the job's " + ShrinkOrigin.ranks(gone), false);
    }

    /**
     * A child of this communicator that holds {@code here} (ranks of this communicator, in the child's order), made
     * as {@code origin} says (a {@link ShrinkOrigin}'s words).
     */
    public JobRanks child(int[] here, String origin) {
        return child(here, origin, madeBySplit);
    }

    /** The child of this communicator's split with {@code color} that holds {@code here}, as {@link #child}. */
    public JobRanks split(int[] here, int color) {
        return child(here, "split with color " + color, true);
    }

    private JobRanks child(int[] here, String origin, boolean split) {
        int[] job = Arrays.stream(here).map(r -> ranks[r]).toArray();
        boolean asTheJob = job.length == ranks.length && Arrays.equals(job, ranks) && this.origin == null;
        return new JobRanks(job, asTheJob ? null : origin, split);
    }

    /** The ranks of this communicator that remain once {@code excluded} (sorted) are left out, in order. */
    public static int[] without(int size, int[] excluded) {
        return IntStream.range(0, size)
                .filter(r -> Arrays.binarySearch(excluded, r) < 0)
                .toArray();
    }

    /** Whether the communicator numbers its ranks as the job does: the job's own, or a child that holds them all so. */
    public boolean numberedAsTheJob() {
        return origin == null;
    }

    /**
     * Whether a split made the communicator, or one it descends from: the job grows from its own communicator, or from
     * one that its survivors shrank or grew, which hold every rank of the job that is alive.
     */
    public boolean madeBySplit() {
        return madeBySplit;
    }

    /** The number of ranks of the communicator. */
    public int size() {
        return ranks.length;
    }

    /** The job's number of the communicator's rank {@code rank}. */
    public int jobRank(int rank) {
        return ranks[rank];
    }

    /** The communicator's number of the job's rank {@code jobRank}, or -1 where it does not hold it. */
    public int rankOf(int jobRank) {
        for (int r = 0; r < ranks.length; r++) {
            if (ranks[r] == jobRank) {
                return r;
            }
        }
        return -1;
    }

    /**
     * Whether a failure of the job that blames {@code atFault} (ranks of the job, as the failure carries them)
     * concerns the communicator: it holds one of them, or the failure blames none (then it concerns every
     * communicator of the job).
     */
    public boolean concerns(int[] atFault) {
        return atFault.length == 0 || Arrays.stream(atFault).anyMatch(r -> rankOf(r) >= 0);
    }

    /**
     * The job's {@code failure}, which blames {@code atFault}, as the communicator shows it: the ranks it blames are
     * the job's, followed by their numbers in this communicator and how it came to number them, where those differ
     * ("rank 3 of the job (rank 1 of this communicator, split with color 1) at ... is gone"; where the failure's
     * words do not begin with those ranks, the numbering follows them).
     */
    public String named(int[] atFault, String failure) {
        if (origin == null || atFault.length == 0) {
            return failure;
        }
        String subject = atFault.length == 1 ? "rank " + atFault[0] : "ranks " + Arrays.toString(atFault);
        int[] here =
                Arrays.stream(atFault).map(this::rankOf).filter(r -> r >= 0).toArray();
        String numbered = atFault.length == 1
                ? (here.length == 0 ? "not in this communicator" : "rank " + here[0] + " of this communicator")
                : "ranks " + Arrays.toString(here) + " of this communicator";
        String of = " of the job (" + numbered + ", " + origin + ")";
        boolean startsWithThem = failure.startsWith(subject)
                && (failure.length() == subject.length() || !Character.isDigit(failure.charAt(subject.length())));
        return startsWithThem
                ? subject + of + failure.substring(subject.length())
                : failure + " (" + subject + of + ")";
    }

    /** "ranks [0, 2, 3] of the job, split with color 1". */
    @Override
    public String toString() {
        return "ranks " + Arrays.stream(ranks).mapToObj(Integer::toString).collect(Collectors.joining(", ", "[", "]"))
                + " of the job" + (origin == null ? "" : ", " + origin);
    }
}
