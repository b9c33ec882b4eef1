package dev.collectives.backend.device;

import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Reform;
import java.time.Duration;

/**
 * A reform after ranks died: the survivors meet, through the job's rendezvous, the processes started in the places
 * of the dead ranks ({@link Rendezvous#reunite}), and all of them form a communicator of the job's size as they
 * joined it ({@link DeviceJoin#form}: a new unique id of rank 0, {@code CommInitRank(Config)} with the config the
 * survivors joined with). The replacements come the same way through {@link DeviceJoin#join}. The new communicator
 * takes the job over: it watches it, numbered as the job, and the survivor's aborted one leaves the watch.
 */
final class ReplacementInit {
    private ReplacementInit() {}

    /** {@code survivor}'s communicator with the replacements, joined with {@code config}; waits up to {@code timeout}. */
    static DeviceCommunicator reform(DeviceCommunicator survivor, CommConfig config, Duration timeout) {
        int rank = survivor.rank();
        NativeComm handle = survivor.nativeComm();
        if (handle.jobRanks() != null && !handle.jobRanks().numberedAsTheJob()) {
            throw Reform.notTheJobs(survivor);
        }
        if (!handle.isAborted()) {
            throw Reform.notAborted(survivor);
        }
        Rendezvous rendezvous = handle.survivorsRendezvous("reform");
        int[] replaced;
        DeviceCommunicator reformed;
        try {
            replaced = rendezvous.reunite(timeout);
            reformed = DeviceJoin.form(
                    survivor.library(),
                    rendezvous,
                    rank,
                    survivor.size(),
                    survivor.device(),
                    config,
                    timeout,
                    survivor.lineage().reformed(replaced));
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
        reformed.takeJobOver(survivor, JobRanks.ofJob(rendezvous.size()), config);
        Reform.logFor(reformed, replaced);
        return reformed;
    }
}
