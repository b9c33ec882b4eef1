package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.Gatherer;
import java.time.Duration;
import java.util.Arrays;

/** A rendezvous over a {@link Gatherer}: an allgather is one gather, a broadcast one gather of rank 0's value. */
final class GatheredRendezvous extends Exchange {
    private static final byte[] NOTHING = new byte[0];

    private final Gatherer gatherer;

    GatheredRendezvous(int rank, int size, String where, Duration timeout, Gatherer gatherer) {
        super(rank, size, where, timeout);
        this.gatherer = gatherer;
        joined(); // the gatherer's ranks are all there: each gather is a barrier of them
    }

    /** Each operation is one gather, which has the whole of the operation's deadline. */
    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        return gather(rank() == 0 ? value : NOTHING)[0];
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        byte[][] values = gather(value);
        int[] lengths = Arrays.stream(values).mapToInt(v -> v.length).toArray();
        if (Arrays.stream(lengths).anyMatch(length -> length != value.length)) {
            throw BootstrapException.failed(
                    rank(),
                    operation() + " at " + where() + ": the ranks passed values of" + " different lengths "
                            + Arrays.toString(lengths) + " (by rank)",
                    null);
        }
        return values;
    }

    private byte[][] gather(byte[] value) {
        byte[][] values;
        try {
            values = gatherer.gather(value, timeout());
        } catch (RuntimeException e) {
            throw BootstrapException.failed(rank(), operation() + " at " + where() + " failed: " + e.getMessage(), e);
        }
        if (values == null || values.length != size() || Arrays.asList(values).contains(null)) {
            throw BootstrapException.failed(
                    rank(),
                    operation() + " at " + where() + " did not return one value for" + " each of the " + size()
                            + " ranks",
                    null);
        }
        return values;
    }

    /** Nothing to tell: the service ends the job on every rank once this rank fails. */
    @Override
    protected void doAbort(String reason) {}

    @Override
    protected void doClose() {}
}
