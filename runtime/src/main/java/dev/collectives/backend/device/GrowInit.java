package dev.collectives.backend.device;

import dev.collectives.runtime.bootstrap.BootstrapException;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.Grow;
import java.time.Duration;

/**
 * A growth of a job of processes: its ranks stop watching it, take in the processes that join through the job's
 * rendezvous ({@link Rendezvous#grow}), and all of them form a communicator of the larger size as they joined it
 * ({@link DeviceJoin#form}: a new unique id of rank 0, {@code CommInitRank(Config)} with the config the ranks joined
 * with). The processes that join come the same way through {@link DeviceJoin#joinJob}. The new communicator takes the
 * job over: it watches it, numbered as the job, and the one it grew from leaves the watch. Where the growth fails on
 * every rank, the job goes on at its size, watched again.
 */
final class GrowInit {
    private GrowInit() {}

    /** {@code member}'s communicator grown by {@code added}, joined with {@code config}; waits up to {@code timeout}. */
    static DeviceCommunicator grow(DeviceCommunicator member, CommConfig config, int added, Duration timeout) {
        if (added < 1) {
            throw Grow.notPositive(member, added);
        }
        NativeComm handle = member.nativeComm();
        if (!handle.watchesJob() || !handle.jobRanks().numberedAsTheJob()) {
            throw Grow.notTheJobs(member);
        }
        if (handle.isAborted()) {
            throw Grow.aborted(member);
        }
        Rendezvous rendezvous = handle.growthRendezvous("grow: " + member);
        DeviceCommunicator grown;
        try {
            int size = rendezvous.grow(added, timeout);
            grown = DeviceJoin.form(
                    member.library(), rendezvous, member.rank(), size, member.device(), config, timeout);
        } catch (BootstrapException e) {
            if (e.jobGoesOn()) {
                handle.watchJobAgain();
            } else {
                rendezvous.close();
            }
            throw e;
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
        grown.takeJobOver(member, config);
        Grow.logFor(grown, member.size(), "through the job's rendezvous");
        return grown;
    }
}
