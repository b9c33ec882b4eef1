package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The live ranks of a job, numbered from 0 in the job's order: the rendezvous through which they form a communicator
 * of their own where some of the job's numbers belong to ranks that died (a job that shrank, then grew: its
 * survivors are ranks 0, 1, 3 of the job, the process that joined rank 4, and here they are ranks 0 to 3). Every
 * operation is an allgather of survivors of the job's rendezvous among the ranks that were alive when they met
 * ({@link #of}); a death among them after that fails the operations that need every rank, naming it.
 */
public final class AmongSurvivors implements Rendezvous {
    private final Rendezvous job;
    /** The job's number of each rank here, in order. */
    private final int[] jobRanks;

    private final int rank;

    private AmongSurvivors(Rendezvous job, int[] jobRanks) {
        this.job = job;
        this.jobRanks = jobRanks;
        this.rank = Arrays.binarySearch(jobRanks, job.rank());
    }

    /**
     * The live ranks of {@code job} (of the job it views, where it is one of these), which meet now: every live rank
     * calls it, as the first operation after the job grew.
     */
    public static AmongSurvivors of(Rendezvous job) {
        Rendezvous whole = job instanceof AmongSurvivors live ? live.job : job;
        byte[][] met = whole.allGatherOfSurvivors(new byte[0]).values();
        return new AmongSurvivors(
                whole,
                IntStream.range(0, met.length).filter(r -> met[r] != null).toArray());
    }

    /** The job's rendezvous, numbered as the job: the one that watches it. */
    public Rendezvous job() {
        return job;
    }

    /** The job's number of each rank here, in order: [0, 1, 3, 4] where the job's rank 2 died. */
    public int[] jobRanks() {
        return jobRanks.clone();
    }

    /** Whether the ranks here are numbered as the job: none of its ranks died. */
    public boolean numberedAsTheJob() {
        return jobRanks.length == job.size();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return jobRanks.length;
    }

    @Override
    public String where() {
        return job.where();
    }

    /** The first rank's {@code value}: every rank first learns its length, so the others may pass null. */
    @Override
    public byte[] broadcast(byte[] value) {
        byte[] length = ByteBuffer.allocate(Integer.BYTES)
                .putInt(rank == 0 ? value.length : 0)
                .array();
        int bytes = ByteBuffer.wrap(allGather(length)[0]).getInt();
        return allGather(rank == 0 ? value : new byte[bytes])[0];
    }

    @Override
    public byte[][] allGather(byte[] value) {
        Survivors all = allGatherOfSurvivors(value);
        for (int r = 0; r < all.values().length; r++) {
            if (all.values()[r] == null) {
                throw BootstrapException.failed(
                        rank,
                        "rank " + r + " of the " + size() + " live ranks of the job at " + where() + " left: "
                                + all.goneReasons()[r],
                        null);
            }
        }
        return all.values();
    }

    /** Each rank's value, or why it is gone, numbered as here. */
    @Override
    public Survivors allGatherOfSurvivors(byte[] value) {
        Survivors all = job.allGatherOfSurvivors(value);
        return new Survivors(
                Arrays.stream(jobRanks).mapToObj(r -> all.values()[r]).toArray(byte[][]::new),
                Arrays.stream(jobRanks).mapToObj(r -> all.goneReasons()[r]).toArray(String[]::new));
    }

    /** Grows the job and returns its size: the live ranks then meet anew ({@link #of}). */
    @Override
    public int grow(int added, Duration timeout) {
        return job.grow(added, timeout);
    }

    @Override
    public Progress.Report reportProgress(Supplier<Progress.Place> place) {
        return job.reportProgress(place);
    }

    @Override
    public void abort(String reason) {
        job.abort(reason);
    }

    @Override
    public void close() {
        job.close();
    }
}
