package dev.collectives.backend.sim;

import dev.collectives.runtime.bootstrap.AmongSurvivors;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.Grow;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Reform;
import java.time.Duration;

/**
 * A reform after ranks of a job of processes died: the survivors stop their wire in the same round, meet the
 * processes started in the places of the dead ranks through the job's rendezvous ({@link Rendezvous#reunite}), and
 * all of them form the job anew over a wire of their own ({@link SimJoin#rejoin}). Every communicator left on the
 * old wire (the survivors' and their children) fails from then on, saying so. A growth goes the same way: the ranks'
 * wire takes part in it in the same round ({@link Rendezvous#grow}), and the job's live ranks (the members and the
 * processes that joined, in the job's order) form the grown job over a wire of their own; where ranks of the job died
 * before (it grows from a shrink's child), they meet among the survivors ({@link AmongSurvivors}), and the processes
 * that joined take the numbers after the communicator's size. Where the growth fails, the old wire goes on.
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
            SimCommunicator reformed = SimJoin.rejoin(
                    survivor.rank(),
                    group.config(),
                    rendezvous,
                    JobRanks.ofJob(rendezvous.size()),
                    survivor.lineage().reformed(replaced));
            Reform.logFor(reformed, replaced);
            return reformed;
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
    }

    /** {@code member}'s communicator, over {@code group}, grown by {@code added}; waits up to {@code timeout}. */
    static SimCommunicator grow(SimCommunicator member, CommGroup group, int added, Duration timeout) {
        if (added < 1) {
            throw Grow.notPositive(member, added);
        }
        if (!(group instanceof WireGroup job) || !job.growsTheJob()) {
            throw Grow.notTheJobs(member);
        }
        if (group.isAborted()) {
            throw Grow.aborted(member);
        }
        Rendezvous rendezvous = job.grow(added, timeout); // a failure that leaves the job as it was is thrown here
        try {
            AmongSurvivors live = AmongSurvivors.of(rendezvous);
            SimConfig config = group.config();
            // ranks on one node (the default) stay on one node; a launcher's ranks per node stay what it said
            int perNode = config.ranksPerNode() == config.ranks() ? live.size() : config.ranksPerNode();
            SimCommunicator grown = SimJoin.rejoin(
                    live.rank(),
                    config.child(live.size(), perNode),
                    live.numberedAsTheJob() ? live.job() : live,
                    JobRanks.grown(live.jobRanks(), live.job().size()),
                    member.lineage().grown(live.size()));
            Grow.logFor(grown, member.size(), "through the job's rendezvous");
            return grown;
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
    }
}
