package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.Topology;
import java.util.List;
import java.util.OptionalLong;

/** A registered window. It knows every rank's window, so that LSA pointers can point into peers' memory. */
final class SimWindow implements RegisteredWindow {
    private final SimCommunicator comm;
    private final DeviceBuffer buffer;
    private final boolean symmetric;
    private final List<WindowArrival> peers;
    private boolean closed;

    SimWindow(SimCommunicator comm, DeviceBuffer buffer, boolean symmetric, List<WindowArrival> peers) {
        this.comm = comm;
        this.buffer = buffer;
        this.symmetric = symmetric;
        this.peers = List.copyOf(peers);
    }

    @Override
    public DeviceBuffer buffer() {
        return buffer;
    }

    @Override
    public boolean symmetric() {
        return symmetric;
    }

    @Override
    public OptionalLong userPointer() {
        requireOpen();
        return comm.capabilities().windowHelpers() ? OptionalLong.of(buffer.address()) : OptionalLong.empty();
    }

    @Override
    public OptionalLong lsaDevicePointer(long offset, int lsaRank) {
        requireOpen();
        if (!comm.capabilities().windowHelpers()) {
            return OptionalLong.empty();
        }
        Topology topology = comm.topology();
        int first = topology.nodeOf(comm.rank()) * topology.ranksPerNode();
        int teamSize = Math.min(topology.ranksPerNode(), topology.size() - first);
        if (lsaRank < 0 || lsaRank >= teamSize) {
            throw CollectivesException.usage(
                    comm.rank(),
                    "lsaRank " + lsaRank + " is outside this node's team of " + teamSize + " rank(s) (ranks " + first
                            + ".." + (first + teamSize - 1) + ")");
        }
        DeviceBuffer peer = peers.get(first + lsaRank).buffer();
        if (offset < 0 || offset > peer.sizeBytes()) {
            throw CollectivesException.usage(
                    comm.rank(),
                    "offset " + offset + " lies outside rank " + (first + lsaRank) + "'s window of " + peer.sizeBytes()
                            + " bytes");
        }
        return OptionalLong.of(peer.address() + offset);
    }

    private synchronized void requireOpen() {
        if (closed) {
            throw CollectivesException.usage(comm.rank(), "window on " + buffer + " was already deregistered");
        }
    }

    /** Deregisters collectively (every rank closes its window). Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        comm.deregisterWindow(this);
    }
}
