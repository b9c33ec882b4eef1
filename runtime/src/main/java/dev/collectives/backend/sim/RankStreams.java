package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Stream;
import java.util.ArrayList;
import java.util.List;

/**
 * The streams of a rank's communicator on its simulated device: those it made, which close with it, and the
 * device's streams its calls name (made here, wrapped, or found by handle). Guarded by the communicator's monitor,
 * so that a stream made while the communicator closes is closed with it or not made.
 */
final class RankStreams {
    private final SimCommunicator comm;
    private final int rank;
    private final int device;
    private final List<SimStream> made = new ArrayList<>();

    RankStreams(SimCommunicator comm, int device) {
        this.comm = comm;
        this.rank = comm.rank();
        this.device = device;
    }

    SimStream create() {
        SimStream stream = new SimStream(
                comm,
                device,
                "sim-device-" + device + "-rank-" + rank + "-of-" + comm.size() + "-stream-" + made.size());
        made.add(stream);
        return stream;
    }

    /** The streams made here, to close with the communicator. */
    List<SimStream> made() {
        return List.copyOf(made);
    }

    /** A stream of this rank's device, found by its handle: a {@link SimForeignStream} or any communicator's. */
    Stream wrap(long handle) {
        SimStream target = SimStream.byHandle(handle);
        if (target == null) {
            throw CollectivesException.usage(
                    rank,
                    "wrapStream(0x" + Long.toHexString(handle) + "): no live stream "
                            + "of the simulated devices has that handle");
        }
        return new WrappedSimStream(of(target), comm);
    }

    /** The stream behind {@code stream}: one of this rank's device, made here or wrapped. */
    SimStream of(Stream stream) {
        SimStream s = stream instanceof WrappedSimStream
                ? ((WrappedSimStream) stream).target()
                : stream instanceof SimStream ? (SimStream) stream : null;
        if (s == null || s.device() != device) {
            throw CollectivesException.usage(
                    rank, stream + " is not a stream of rank " + rank + "'s device (device " + device + ")");
        }
        return s;
    }
}
