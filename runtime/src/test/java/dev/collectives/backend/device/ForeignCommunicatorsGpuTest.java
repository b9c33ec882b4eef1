package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Peers;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.UniqueId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On the real library, in one process: a rank formed from a unique id made by {@code Backend.uniqueId()}, with no
 * rendezvous, and its handle wrapped as another library's would be; closing the wrapper leaves the communicator to
 * its owner, which still reduces. Jobs with ranks of another library are {@code gpu/peers.sh}'s.
 */
@Tag("gpu")
class ForeignCommunicatorsGpuTest {
    @Test
    void aRankFormedFromAUniqueIdIsWrappedAndTheWrapperLeavesItToItsOwner() {
        DeviceBackend backend = GpuFixture.backend();
        UniqueId id = backend.uniqueId();
        Bootstrap bootstrap =
                Bootstrap.builder().rank(0).size(1).device(0).uniqueId(id).build();
        try (JoinedRank rank = backend.join(bootstrap)) {
            assertTrue(rank.comm().crossRankChecksOff().isPresent());
            long handle = ((DeviceCommunicator) rank.comm()).nativeComm().handle();
            try (Communicator wrapped = backend.wrapCommunicator(handle, Peers.COLLECTIVES)) {
                assertEquals(0, wrapped.rank());
                assertEquals(1, wrapped.size());
                try (Stream stream = wrapped.createStream()) {
                    reducesOnItself(wrapped, stream);
                }
            }
            reducesOnItself(rank.comm(), rank.stream());
        }
    }

    /** An allreduce over one rank leaves the values as they were. */
    private static void reducesOnItself(Communicator comm, Stream stream) {
        try (DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024)) {
            float[] values = new float[1024];
            for (int i = 0; i < values.length; i++) {
                values[i] = i;
            }
            b.copyFromHost(values);
            comm.allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, stream);
            stream.synchronize();
            float[] back = new float[1024];
            b.copyToHost(back);
            assertArrayEquals(values, back);
        }
    }
}
