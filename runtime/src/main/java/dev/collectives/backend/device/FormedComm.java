package dev.collectives.backend.device;

import dev.collectives.runtime.Topology;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Lineage;

/**
 * A communicator formed through the job's rendezvous, before it is made a {@link DeviceCommunicator}: its handle,
 * where it sits, its name in the job (its lineage), and the job's ranks it holds where it takes the job over (null where it only joins it).
 */
record FormedComm(
        NativeLibrary library,
        long handle,
        int rank,
        int size,
        int device,
        Topology topology,
        boolean collnetRequested,
        Lineage lineage,
        JobRanks jobRanks) {
    /** The same communicator, holding {@code ranks} of the job it takes over. */
    FormedComm holding(JobRanks ranks) {
        return new FormedComm(library, handle, rank, size, device, topology, collnetRequested, lineage, ranks);
    }
}
