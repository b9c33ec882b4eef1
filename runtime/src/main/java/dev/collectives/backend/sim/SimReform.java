package dev.collectives.backend.sim;

import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.Reform;
import java.time.Duration;

/**
 * A reform after ranks of a job of processes died: the survivors stop their wire in the same round, meet the
 * processes started in the places of the dead ranks through the job's rendezvous ({@link Rendezvous#reunite}), and
 * all of them form the job anew over a wire of their own ({@link SimJoin#rejoin}). Every communicator left on the
 * old wire (the survivors' and their children) fails from then on, saying so.
 */
final class SimReform {
    private SimReform() {}

    /** {@code survivor}'s communicator, over {@code group}, with the replacements; waits up to {@code timeout}. */
    static SimCommunicator reform(SimCommunicator survivor, CommGroup group, Duration timeout) {
        if (!(group instanceof WireGroup job) || !job.isJobGroup()) {
            throw Reform.notTheJobs(survivor);
        }
        if (!group.isAborted()) {
            throw Reform.notAborted(survivor);
        }
        Rendezvous rendezvous = job.stopForReform(timeout);
        try {
            int[] replaced = rendezvous.reunite(timeout);
            SimCommunicator reformed = SimJoin.rejoin(survivor.rank(), group.config(), rendezvous);
            Reform.logFor(reformed, replaced);
            return reformed;
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
    }
}
