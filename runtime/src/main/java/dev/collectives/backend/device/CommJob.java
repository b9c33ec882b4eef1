package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A communicator's part of its job's watch ({@link JobWatch}), where its job was joined through a TCP rendezvous: it
 * passes from a parent to its children and to the communicator that takes the job over, and news of the job that
 * concerns a rank the communicator holds aborts the communicator behind ({@code abortBehind}, given when made).
 */
final class CommJob {
    private final int rank;
    private final Runnable abortBehind;
    private volatile JobWatch.Watched watched = JobWatch.NONE;

    CommJob(int rank, Runnable abortBehind) {
        this.rank = rank;
        this.abortBehind = abortBehind;
    }

    /** The watch as it stands: {@link JobWatch#NONE} while the job is not watched. */
    JobWatch.Watched watched() {
        return watched;
    }

    /**
     * The failure that {@code what} meets once the job's failure aborted the communicator ({@code aborted}: what became
     * of it), naming why the job failed; empty where it did not.
     */
    Optional<CollectivesException> failed(String what, String aborted) {
        return watched.failure()
                .map(why -> CollectivesException.library(
                        Result.REMOTE_ERROR, rank, what, "the job failed: " + why + "; " + aborted));
    }

    /**
     * This rank waited longer than {@code timeoutSeconds} for {@code what} to complete ({@code position}: where its
     * flight record stands): tells the job, aborts the communicator behind, and returns the failure to throw, naming
     * the ranks that never arrived where the job's verdict does ({@code aborted}: what became of the communicator).
     */
    CollectivesException stalled(String what, long timeoutSeconds, String position, String aborted) {
        Optional<String> verdict = watched.stalled("waited " + timeoutSeconds + " s for " + what + "; " + position);
        abortBehind.run();
        return CollectivesException.library(
                Result.REMOTE_ERROR,
                rank,
                what,
                "no completion within " + timeoutSeconds + " s"
                        + verdict.map(why -> "; the job failed: " + why).orElse("") + "; " + aborted);
    }

    /**
     * Keeps {@code rendezvous} open as the job's watch (or closes it, where it cannot watch): a job failure it reports
     * aborts the communicator behind, and every failure this rank meets from then on names it.
     */
    void watch(Rendezvous rendezvous, JobRanks ranks) {
        watched = JobWatch.start(rendezvous, ranks, abortBehind);
    }

    /**
     * Shares {@code parent}'s watch as its child, whose ranks {@code childOf} tells from the parent's (a split's, a
     * shrink's): news of the job that concerns a rank it holds aborts the communicator behind.
     */
    void watchAsChildOf(CommJob parent, UnaryOperator<JobRanks> childOf) {
        watched = parent.watched.child(childOf, abortBehind);
    }

    /**
     * The job passes from {@code before} to this communicator, which holds {@code ranks} of the job: the survivors
     * formed it with the replacements of the dead ranks, or the ranks with the processes that joined. This one
     * watches the job, and {@code before} leaves the watch.
     */
    void takeOver(CommJob before, JobRanks ranks) {
        watched = before.watched.reformed(ranks, abortBehind);
        before.watched.leave();
    }

    /**
     * The job's rendezvous, no longer watched, through which its ranks grow it; throws why not after {@code refused}
     * ("grow: ..."): a death or the job's end came first, or the job has no tcp:// rendezvous. Where the growth fails,
     * {@link #watchAgain}.
     */
    Rendezvous growthRendezvous(String refused) {
        return watched.unwatchToGrow(rank, refused);
    }

    /** The growth failed and the job goes on: the job is watched again. */
    void watchAgain() {
        watched.watchAgain();
    }

    /** Whether the job is watched (joined through a TCP rendezvous). */
    boolean isWatched() {
        return watched != JobWatch.NONE;
    }

    /** The job's ranks the communicator holds, for the survivors of a death to meet; null where not watched. */
    JobRanks ranks() {
        return watched.ranks();
    }

    /**
     * The job's rendezvous, for the survivors of a death to form a new communicator among them once this one was
     * aborted; throws why they cannot (no rendezvous, the job ended otherwise, rank 0 died, no death reported). The
     * abort may still run: the new communicator forms beside it, since NCCL's abort returns only once its proxy
     * threads, which poll every 500 ms, have seen it (about half a second); what the old one's work used is freed
     * only once the abort has returned ({@link FreesAfterAbort#free}).
     */
    Rendezvous survivorsRendezvous(String call) {
        Optional<String> why = watched.death();
        return watched.resumeAmongSurvivors(
                rank,
                call + ": the communicator was aborted"
                        + why.map(failure -> " when the job failed (" + failure + ")")
                                .orElse(""));
    }

    /**
     * The job's watch while the survivors of a death form, by {@code call}, the communicator that holds {@code ranks}
     * of the job: a death among them ends the library's wait ({@link JobWatch.Watched#whileForming}).
     */
    JobWatch.Forming whileForming(JobRanks ranks, String call) {
        return watched.whileForming(ranks, rank, call);
    }
}
