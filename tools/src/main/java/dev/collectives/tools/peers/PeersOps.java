package dev.collectives.tools.peers;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.Check;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;

/**
 * What every rank of a peers job does, whichever library it runs ({@code gpu/peers/cupy_rank.py} does the same, with
 * the same data): each iteration, the seed examples' two allreduces (sendbuff[0, 1024) into recvbuff[0, 1024),
 * sendbuff[1024, 2048) into recvbuff[2048, 3072)), an allgather of a shard into the full tensor and a reducescatter
 * of the full tensor back into shards (as the hybrid-parallel example's tensor-parallel half does them), then a
 * broadcast of weights from rank {@value #ROOT}; after each op, the rank compares its result element by element with
 * what the host computes ({@link HostData}).
 *
 * @param pipeline the bound pipeline of the mode, which {@link #close()} closes
 */
record PeersOps(
        Pipeline pipeline,
        DeviceBuffer sendbuff,
        DeviceBuffer recvbuff,
        DeviceBuffer shard,
        DeviceBuffer full,
        DeviceBuffer reduced,
        DeviceBuffer weights,
        Runnable seed,
        Runnable gather,
        Runnable scatter,
        Runnable broadcast)
        implements AutoCloseable {
    static final long SEED_BUFFER = 4096;
    static final long COUNT = 1024;
    static final long SECOND_SEND_OFFSET = 1024;
    static final long SECOND_RECV_OFFSET = 2048;
    static final long SHARD = 1024;
    /** The full tensor: a shard of every rank. */
    static final String FULL = "1024 * ranks";

    static final long WEIGHTS = 4096;
    /** The rank whose weights the others receive: a rank of the other library in the proof's jobs. */
    static final int ROOT = 0;

    static final int ITERATIONS = 2;

    /** Binds the pipeline of {@code mode} on {@code comm}, its ops on the rank's stream. */
    static PeersOps bind(Registration mode, Communicator comm, RankContext rank) {
        return switch (mode) {
            case NONE -> {
                var p = CollectiveNonePeersPipeline.bind(comm, rank.stream());
                yield new PeersOps(
                        p,
                        p.sendbuff(),
                        p.recvbuff(),
                        p.shard(),
                        p.full(),
                        p.reduced(),
                        p.weights(),
                        p::seed,
                        p::gather,
                        p::scatter,
                        p::broadcastWeights);
            }
            case LOCAL -> {
                var p = CollectiveLocalPeersPipeline.bind(comm, rank.stream());
                yield new PeersOps(
                        p,
                        p.sendbuff(),
                        p.recvbuff(),
                        p.shard(),
                        p.full(),
                        p.reduced(),
                        p.weights(),
                        p::seed,
                        p::gather,
                        p::scatter,
                        p::broadcastWeights);
            }
            case GRAPH -> {
                var p = CollectiveGraphPeersPipeline.bind(comm, rank.stream());
                yield new PeersOps(
                        p,
                        p.sendbuff(),
                        p.recvbuff(),
                        p.shard(),
                        p.full(),
                        p.reduced(),
                        p.weights(),
                        p::seed,
                        p::gather,
                        p::scatter,
                        p::broadcastWeights);
            }
        };
    }

    /** Every op of iteration {@code it}, each run, waited for and checked on this rank. */
    Check iteration(RankContext rank, int it) {
        return Check.all(seed(rank, it), gather(rank, it), scatter(rank, it), broadcast(rank, it));
    }

    private Check seed(RankContext rank, int it) {
        int checked = (int) SEED_BUFFER;
        sendbuff.copyFromHost(HostData.values(it, rank.rank(), 0, checked));
        recvbuff.copyFromHost(HostData.untouched(checked));
        run(rank, seed);
        float[] expected = HostData.untouched(checked);
        for (int j = 0; j < COUNT; j++) {
            expected[j] = HostData.sum(it, rank.size(), j);
            expected[(int) SECOND_RECV_OFFSET + j] = HostData.sum(it, rank.size(), SECOND_SEND_OFFSET + j);
        }
        return HostData.compare(rank.rank(), "seed recvbuff", expected, HostData.read(recvbuff, checked));
    }

    private Check gather(RankContext rank, int it) {
        int fullCount = (int) SHARD * rank.size();
        shard.copyFromHost(HostData.values(it, rank.rank(), 0, (int) SHARD));
        full.copyFromHost(HostData.untouched(fullCount));
        run(rank, gather);
        float[] expected = new float[fullCount];
        for (int r = 0; r < rank.size(); r++) {
            System.arraycopy(HostData.values(it, r, 0, (int) SHARD), 0, expected, r * (int) SHARD, (int) SHARD);
        }
        return HostData.compare(rank.rank(), "allgather full", expected, HostData.read(full, fullCount));
    }

    private Check scatter(RankContext rank, int it) {
        int fullCount = (int) SHARD * rank.size();
        full.copyFromHost(HostData.values(it, rank.rank(), 0, fullCount));
        reduced.copyFromHost(HostData.untouched((int) SHARD));
        run(rank, scatter);
        float[] expected = new float[(int) SHARD];
        for (int j = 0; j < SHARD; j++) {
            expected[j] = HostData.sum(it, rank.size(), rank.rank() * SHARD + j);
        }
        return HostData.compare(rank.rank(), "reducescatter reduced", expected, HostData.read(reduced));
    }

    private Check broadcast(RankContext rank, int it) {
        float[] rootWeights = HostData.values(it, ROOT, 0, (int) WEIGHTS);
        weights.copyFromHost(rank.rank() == ROOT ? rootWeights : HostData.untouched((int) WEIGHTS));
        run(rank, broadcast);
        return HostData.compare(rank.rank(), "broadcast weights", rootWeights, HostData.read(weights));
    }

    private static void run(RankContext rank, Runnable op) {
        op.run();
        rank.stream().synchronize();
    }

    @Override
    public void close() {
        pipeline.close();
    }
}
