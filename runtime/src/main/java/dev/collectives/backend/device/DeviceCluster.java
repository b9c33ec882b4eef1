package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.spi.Lineage;
import dev.collectives.runtime.spi.RankThreads;

/**
 * n ranks of one process, one device each (devices 0..n-1), each with its communicator and stream. The
 * communicators are made like {@code CommInitAll} but one thread per rank, with {@code CommInitRankConfig}
 * and a shared unique id; if any rank fails, all are aborted.
 */
final class DeviceCluster implements LocalCluster {
    private final NativeLibrary library;
    private final DeviceCommunicator[] comms;
    private final Stream[] streams;
    private boolean closed;

    DeviceCluster(NativeLibrary library, int ranks, CommConfig config) {
        this.library = library;
        this.comms = new DeviceCommunicator[ranks];
        this.streams = new Stream[ranks];
        config.requireSupportedBy(library, -1);
        byte[] id = new byte[128];
        library.check(library.api.getUniqueId(library.lib, id), -1, 0, "GetUniqueId");
        Topology topology = new Topology(ranks, ranks);
        Lineage lineage = Lineage.newJob();
        RankThreads.run(
                ranks,
                library.dialect.backendName() + "-init",
                this::initContext,
                rank -> {
                    int r = rank.rank();
                    library.checkRuntime(library.api.setDevice(library.lib, r), r, "SetDevice");
                    comms[r] = new DeviceCommunicator(
                            library,
                            config.initRank(library, ranks, id, r, Waits.SYSTEM, Waits.SYSTEM.syncTimeout()),
                            r,
                            ranks,
                            r,
                            topology,
                            config.collnetEnable() == 1,
                            lineage);
                    streams[r] = comms[r].createStream();
                },
                this::abortAll);
    }

    /** Contexts used only during init, whose comm and stream are not ready yet. */
    private RankContext initContext(int rank) {
        return context(rank);
    }

    private RankContext context(int rank) {
        return new RankContext() {
            @Override
            public DeviceCommunicator comm() {
                return comms[rank];
            }

            @Override
            public Stream stream() {
                return streams[rank];
            }

            @Override
            public int rank() {
                return rank;
            }

            @Override
            public int size() {
                return comms.length;
            }
        };
    }

    private synchronized void abortAll() {
        for (DeviceCommunicator comm : comms) {
            if (comm != null) {
                try {
                    comm.abort();
                } catch (RuntimeException ignored) {
                    // the first failure is what the caller sees; aborting the rest is best effort
                }
            }
        }
    }

    @Override
    public int size() {
        return comms.length;
    }

    /** The communicator of {@code rank}, for tests and tools that drive ranks themselves. */
    DeviceCommunicator comm(int rank) {
        return comms[rank];
    }

    @Override
    public void run(RankBody body) {
        if (closed) {
            throw CollectivesException.usage(-1, "run on a closed cluster");
        }
        for (DeviceCommunicator comm : comms) {
            if (comm.nativeComm().isAborted()) {
                throw CollectivesException.usage(
                        comm.rank(), "the communicators were aborted after a failure; " + "make a new cluster");
            }
        }
        RankThreads.run(
                comms.length,
                library.dialect.backendName(),
                this::context,
                rank -> {
                    library.checkRuntime(library.api.setDevice(library.lib, rank.rank()), rank.rank(), "SetDevice");
                    body.run(rank);
                },
                this::abortAll);
    }

    /** Streams, then communicators (finalize + destroy), one thread per rank since finalize may wait for peers. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RankThreads.run(
                comms.length,
                library.dialect.backendName() + "-close",
                this::context,
                rank -> {
                    library.checkRuntime(library.api.setDevice(library.lib, rank.rank()), rank.rank(), "SetDevice");
                    streams[rank.rank()].close();
                    comms[rank.rank()].close();
                },
                this::abortAll);
    }
}
