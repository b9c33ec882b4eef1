package dev.collectives.backend.sim;

import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import java.util.List;

/** A captured graph: the ops recorded on a stream, with graph registration of their buffers while it lives. */
final class SimGraph extends CapturedOps implements Graph {
    SimGraph(SimCommunicator comm, List<List<OpCall>> steps) {
        super(comm, steps);
        comm.ledger().graphs.incrementAndGet();
    }

    @Override
    public GraphExec instantiate() {
        requireOpen("the graph");
        return new SimGraphExec(comm, steps);
    }

    @Override
    public void close() {
        if (release()) {
            comm.ledger().graphs.decrementAndGet();
        }
    }

    @Override
    public String toString() {
        return "graph of " + steps.size() + " step(s) on rank " + comm.rank();
    }
}
