package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.Lineage;
import dev.collectives.runtime.spi.RankThreads;
import java.util.ArrayList;
import java.util.List;

/**
 * n simulated ranks in this process, one communicator (with a default stream) each. When a rank of a
 * {@link #run} fails, the communicator is aborted so that the others fail instead of waiting; the cluster is then
 * unusable, as an aborted communicator is.
 */
public final class SimCluster implements LocalCluster {
    private final SimConfig config;
    private final CommGroup group;
    private final List<SimCommunicator> comms = new ArrayList<>();
    private final List<Ledger> ledgers = new ArrayList<>();
    private boolean closed;

    SimCluster(SimConfig config) {
        this.config = config;
        this.group = new CommGroup(config);
        Lineage lineage = Lineage.newJob();
        for (int r = 0; r < config.ranks(); r++) {
            Ledger ledger = new Ledger();
            ledgers.add(ledger);
            comms.add(new SimCommunicator(r, config, group, ledger, lineage));
        }
    }

    /** What the cluster simulates. */
    public SimConfig config() {
        return config;
    }

    @Override
    public int size() {
        return config.ranks();
    }

    /** Rank {@code rank}'s communicator. */
    public SimCommunicator communicator(int rank) {
        return comms.get(rank);
    }

    /** Live resources over all ranks; all zero once everything made through the cluster was closed. */
    public SimUsage usage() {
        int allocations = 0;
        int registrations = 0;
        int windows = 0;
        int graphs = 0;
        int graphExecs = 0;
        for (Ledger ledger : ledgers) {
            SimUsage u = ledger.snapshot();
            allocations += u.allocations();
            registrations += u.registrations();
            windows += u.windows();
            graphs += u.graphs();
            graphExecs += u.graphExecs();
        }
        return new SimUsage(allocations, registrations, windows, graphs, graphExecs);
    }

    @Override
    public void run(RankBody body) {
        synchronized (this) {
            if (closed) {
                throw CollectivesException.usage(-1, "run() on a closed cluster");
            }
        }
        RankThreads.run(
                size(),
                "sim",
                r -> new Context(comms.get(r), comms.get(r).defaultStream(), r, size()),
                body,
                () -> group.abort("a rank of the local run failed"));
    }

    /** Closes every rank's communicator; throws the first failure (live resources), the others suppressed. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        CollectivesException failure = null;
        for (SimCommunicator comm : comms) {
            try {
                comm.close();
            } catch (CollectivesException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return config.toString();
    }

    private record Context(SimCommunicator comm, Stream stream, int rank, int size) implements RankContext {}
}
