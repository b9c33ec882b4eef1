package dev.collectives.backend.device;

import dev.collectives.runtime.Topology;
import dev.collectives.runtime.spi.JobRanks;

/**
 * A communicator formed through the job's rendezvous, before it is made a {@link DeviceCommunicator}: its handle,
 * where it sits, and the job's ranks it holds where it takes the job over (null where it only joins it).
 */
record FormedComm(
        NativeLibrary library,
        long handle,
        int rank,
        int size,
        int device,
        Topology topology,
        boolean collnetRequested,
        JobRanks jobRanks) {
    /** The same communicator, holding {@code ranks} of the job it takes over. */
    FormedComm holding(JobRanks ranks) {
        return new FormedComm(library, handle, rank, size, device, topology, collnetRequested, ranks);
    }
}
