package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A call on the device backend allocates nothing on its way to the library, with the flight recorder on (its
 * default): its checks, its entry, the lock against an abort. Over a library that answers every op at once.
 */
class OpPathAllocationTest {
    private static final int CALLS = 20_000;
    private static final int COUNT = 256;

    /** The scripted library, answering every op with success and keeping nothing of it. */
    private static final class Silent extends ScriptedNativeApi {
        @Override
        public int collective(
                long lib, int kind, long send, long recv, long count, int type, int op, int peer, long comm, long s) {
            return 0;
        }
    }

    @Test
    void anAllReduceAndABroadcastOffTheRootAllocateNothing() {
        Silent api = new Silent();
        try (Communicator comm = api.communicator(1, 2);
                Stream stream = comm.createStream();
                DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
                DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT)) {
            Runnable calls = () -> {
                for (int i = 0; i < CALLS; i++) {
                    comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
                    comm.broadcast(null, recv, COUNT, DataType.FLOAT32, 0, stream);
                }
            };
            calls.run(); // the classes loaded, the entries' strings made, the ring filled once

            long before = allocatedBytes();
            calls.run();
            long perCall = (allocatedBytes() - before) / (2L * CALLS);

            assertEquals(0, perCall, "bytes allocated per call");
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
