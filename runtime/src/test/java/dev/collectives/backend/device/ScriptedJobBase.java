package dev.collectives.backend.device;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * What the scripted jobs of the device tests share: a job as rank {@code rank} of {@code size} sees it through its
 * rendezvous at {@link #WHERE}, whose watch the test tells of a failure ({@link #fail}), which records the operations
 * the rank calls and whether it left the job.
 */
abstract class ScriptedJobBase implements Rendezvous {
    static final String WHERE = "tcp://127.0.0.1:41000";
    /** How the job tells of rank 1's death. */
    static final String RANK_ONE_GONE = "rank 1 at /127.0.0.1:41000 is gone: its connection ended while the job ran";

    final List<String> operations = new CopyOnWriteArrayList<>();
    volatile boolean closed;
    volatile boolean watched;
    final int rank;
    final int size;
    private volatile Consumer<Cause> watcher;

    ScriptedJobBase(int rank, int size) {
        this.rank = rank;
        this.size = size;
    }

    /** This rank's communicator on {@code api}, which watches this job: rank 1 died, which aborted it behind. */
    DeviceCommunicator afterRankOneDied(ScriptedNativeApi api) throws InterruptedException {
        DeviceCommunicator comm = api.communicator(rank, size);
        comm.watchJob(this, JobRanks.ofJob(this.size()), CommConfig.DEFAULT);
        fail(1, RANK_ONE_GONE);
        api.awaitCount("commAbort", 1);
        return comm;
    }

    /**
     * What an allgather of survivors returns: each rank that {@code gone} holds is gone, and each other rank
     * contributes {@code valueOf} it.
     */
    Survivors survivors(IntPredicate gone, IntFunction<byte[]> valueOf) {
        Survivors survivors = new Survivors(new byte[size][], new String[size]);
        for (int r = 0; r < size; r++) {
            if (gone.test(r)) {
                survivors.goneReasons()[r] = "rank " + r + " is gone";
            } else {
                survivors.values()[r] = valueOf.apply(r);
            }
        }
        return survivors;
    }

    /** The job's watch hears that rank {@code dead} died, as {@code why} says. */
    void fail(int dead, String why) {
        fail(Cause.of(Cause.Kind.DIED, why, dead));
    }

    /** The job's watch hears {@code why}. */
    void fail(Cause why) {
        watcher.accept(why);
    }

    @Override
    public boolean watch(Consumer<Cause> onFailure) {
        watched = true;
        watcher = onFailure;
        return true;
    }

    @Override
    public byte[] broadcast(byte[] value) {
        throw new UnsupportedOperationException("the communicator was made already");
    }

    @Override
    public byte[][] allGather(byte[] value) {
        throw new UnsupportedOperationException("the communicator was made already");
    }

    @Override
    public void abort(String reason) {
        operations.add("abort: " + reason);
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public String where() {
        return WHERE;
    }
}
