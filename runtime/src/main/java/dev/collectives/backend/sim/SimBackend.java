package dev.collectives.backend.sim;

import com.google.auto.service.AutoService;
import dev.collectives.runtime.Availability;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.UniqueId;

/**
 * The embedded backend: ranks are threads of this process (or, when joined, processes of one job), "device" memory is host memory, and every
 * registration rule whose breach real libraries leave undefined is reported. {@link #local(int)} uses the defaults of
 * {@link SimConfig}; {@link #cluster()} configures granularity, topology, capabilities, environment and timeout.
 */
@AutoService(Backend.class)
public final class SimBackend implements Backend {
    /** The backend's name. */
    public static final String NAME = "sim";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Availability availability() {
        return Availability.available();
    }

    @Override
    public LocalCluster local(int ranks) {
        return cluster().ranks(ranks).build();
    }

    /**
     * This rank of a job whose other ranks are threads of this process or other processes: see {@link SimJoin}.
     * Refuses a bootstrap with a unique id: the sim's ranks meet through a rendezvous.
     */
    @Override
    public JoinedRank join(Bootstrap bootstrap) {
        if (bootstrap.uniqueId().isPresent()) {
            throw CollectivesException.usage(
                    bootstrap.rank(),
                    "backend 'sim' cannot form a communicator from a "
                            + bootstrap.uniqueId().get() + ": its ranks "
                            + "meet through a rendezvous (COLLECTIVES_RENDEZVOUS), and a unique id is NCCL's or "
                            + "MCCL's; use nccl or mccl, or unset " + UniqueId.VARIABLE);
        }
        return SimJoin.join(bootstrap);
    }

    /** A builder for a configured local cluster, e.g. {@code SimBackend.cluster().ranks(4).ranksPerNode(1).build()}. */
    public static SimConfig.Builder cluster() {
        return SimConfig.builder();
    }
}
