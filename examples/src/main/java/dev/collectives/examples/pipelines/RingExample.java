package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.RankContext;

/**
 * Runs {@link SendRecvRing} once round the ring: after hop h a rank holds the data rank {@code rank - h} started
 * with, which it passes on in the next hop.
 */
public final class RingExample implements Example {
    private static final int COUNT = (int) SendRecvRing.COUNT;
    /** The iteration {@link HostData#value} is called with: every rank starts with its own values. */
    private static final int START = 0;

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public String summary() {
        return "send/recv ring: each rank's data travels once round the ring, grouped send and recv per hop";
    }

    /** A ring of one rank would send to itself. */
    @Override
    public int minRanks() {
        return 2;
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.PLAIN;
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveSendRecvRing pipeline = CollectiveSendRecvRing.bind(rank.comm(), rank.stream())) {
            pipeline.outbox().copyFromHost(HostData.values(START, rank.rank(), 0, COUNT));
            Check check = Check.each("hop", rank.size() - 1, hop -> {
                pipeline.inbox().copyFromHost(HostData.untouched(COUNT));
                pipeline.pass();
                rank.stream().synchronize();
                float[] received = HostData.read(pipeline.inbox());
                int origin = Math.floorMod(rank.rank() - hop, rank.size());
                pipeline.outbox().copyFromHost(received);
                return HostData.compare(rank.rank(), "inbox", HostData.values(START, origin, 0, COUNT), received)
                        .in("(data of rank " + origin + ")");
            });
            return new RankReport(pipeline.describe(), check);
        }
    }
}
