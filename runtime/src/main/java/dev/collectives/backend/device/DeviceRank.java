package dev.collectives.backend.device;

import dev.collectives.runtime.Topology;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.runtime.spi.Lineage;

/**
 * What the parts of one rank's communicator need, given to each when it is made: the library, the native handle,
 * who the rank is and on which device, and the flight recorder. The parts never call back into the communicator.
 */
record DeviceRank(
        NativeLibrary library,
        NativeComm nativeComm,
        int rank,
        int size,
        int device,
        Topology topology,
        FlightRecorder recorder,
        Lineage lineage) {
    /** "nccl", "mccl". */
    String backendName() {
        return library.dialect.backendName();
    }
}
