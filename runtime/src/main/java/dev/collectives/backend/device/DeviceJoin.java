package dev.collectives.backend.device;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.bootstrap.AmongSurvivors;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Joined;
import dev.collectives.runtime.spi.Lineage;
import java.time.Duration;
import java.util.Arrays;

/**
 * {@code join} for the native backends: this process's rank of a multi-process job, one device each. The ranks
 * meet through the bootstrap's rendezvous, check that they load the same backend and library version, carry rank
 * 0's unique id ({@code GetUniqueId}) to every rank and learn how many ranks share a node; then each calls
 * {@code CommInitRank(Config)} on its device. The rendezvous then watches the job while the communicator lives
 * ({@link JobWatch}), so that a failure names the rank at fault, and the survivors of a death form a new
 * communicator through it ({@link SurvivorsInit}); a process started in the place of a rank that died meets them
 * first, then forms the communicator of the job's size with them ({@link ReplacementInit}). A bootstrap with a unique id made elsewhere has no rendezvous:
 * the rank forms its communicator from that id ({@link ForeignCommunicators}).
 */
final class DeviceJoin {
    private static final System.Logger LOG = System.getLogger("dev.collectives.recovery");

    private DeviceJoin() {}

    /** This process's rank, its communicator made with {@code config}. */
    static JoinedRank join(Dialect dialect, Bootstrap bootstrap, CommConfig config) {
        NativeLibrary library = NativeLibrary.require(dialect);
        int rank = bootstrap.rank();
        config.requireSupportedBy(library, rank);
        int size = bootstrap.size();
        int device = bootstrap.device();
        int devices = library.deviceCount();
        if (device >= devices) {
            throw CollectivesException.usage(
                    rank,
                    dialect.backendName() + ": device " + device + " does not exist;" + " this host has " + devices
                            + " (" + bootstrap.describe() + ")");
        }
        if (bootstrap.uniqueId().isPresent()) {
            return ForeignCommunicators.join(
                    library, bootstrap, bootstrap.uniqueId().get(), config);
        }
        DeviceCommunicator comm =
                joinJob(library, bootstrap.rendezvous(), rank, size, device, config, bootstrap.timeout());
        try {
            return new Joined(comm, comm.createStream(), bootstrap.localRank(), device);
        } catch (RuntimeException e) {
            comm.close();
            throw e;
        }
    }

    /**
     * The communicator of rank {@code rank} of {@code size} that met the others at {@code rendezvous}, which then
     * watches the job; a replacement of a rank that died first meets the survivors there, and a process that joins a
     * running job first waits there for its ranks to grow it (its rank and size are then the rendezvous's), waiting
     * up to {@code timeout}.
     */
    static DeviceCommunicator joinJob(
            NativeLibrary library,
            Rendezvous rendezvous,
            int rank,
            int size,
            int device,
            CommConfig config,
            Duration timeout) {
        DeviceCommunicator comm;
        JobRanks ranks;
        try {
            if (rendezvous.replacement()) {
                int[] replaced = rendezvous.reunite(timeout); // where the survivors call reform
                LOG.log(
                        System.Logger.Level.INFO,
                        () -> "replacement: rank " + rank + " of " + size + " joined the " + "survivors at "
                                + rendezvous.where() + " (ranks replaced: " + Arrays.toString(replaced) + ")");
            }
            if (rendezvous.joining()) {
                int grown = rendezvous.grow(0, timeout); // where the ranks call grow
                LOG.log(
                        System.Logger.Level.INFO,
                        () -> "joiner: rank " + rendezvous.rank() + " of " + grown + " joined the job at "
                                + rendezvous.where());
                AmongSurvivors live = AmongSurvivors.of(rendezvous);
                comm = new DeviceCommunicator(
                        GrowInit.formGrown(library, live, null, device, config, timeout, Lineage.newJob()));
                ranks = GrowInit.ranksOf(live);
            } else {
                comm = new DeviceCommunicator(RendezvousInit.form(
                        library, rendezvous, rank, size, device, config, timeout, Lineage.newJob()));
                ranks = JobRanks.ofJob(size);
            }
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
        comm.watchJob(rendezvous, ranks, config);
        return comm;
    }
}
