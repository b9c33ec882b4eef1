package dev.collectives.backend.sim;

import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;
import java.util.List;

/** An instantiated graph: each launch re-executes the recorded ops, matched afresh with the other ranks. */
final class SimGraphExec extends CapturedOps implements GraphExec {
    SimGraphExec(SimCommunicator comm, List<List<OpCall>> steps) {
        super(comm, steps);
        comm.ledger().graphExecs.incrementAndGet();
    }

    @Override
    public void launch(Stream stream) {
        requireOpen("the graph exec");
        comm.launchGraph(steps, stream);
    }

    @Override
    public void close() {
        if (release()) {
            comm.ledger().graphExecs.decrementAndGet();
        }
    }
}
