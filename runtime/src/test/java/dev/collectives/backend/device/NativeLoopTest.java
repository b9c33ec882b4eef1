package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmarks' entry into the device backend: one native loop per call, failing as the op would. */
class NativeLoopTest {
    private final ScriptedNativeApi api = new ScriptedNativeApi();

    @Test
    void aLoopIsOneNativeCallAndItsFailureNamesTheOp() {
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        assertTrue(NativeLoop.supports(comm));

        NativeLoop.enqueue(comm, OpKind.ALL_REDUCE, buffer, buffer, 1024, DataType.FLOAT32, ReduceOp.SUM, stream, 100);
        assertEquals(1, api.count("benchEnqueue"));
        api.failing("benchEnqueue", Result.REMOTE_ERROR.code());
        CollectivesException e = assertThrows(
                CollectivesException.class,
                () -> NativeLoop.enqueue(
                        comm, OpKind.ALL_GATHER, buffer, buffer, 512, DataType.FLOAT32, null, stream, 100));
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: ncclAllGather of ncclFloat32 failed: remote process exited or there "
                        + "was a network error",
                e.getMessage());
        IllegalArgumentException unknown = assertThrows(
                IllegalArgumentException.class,
                () -> NativeLoop.enqueue(
                        comm, OpKind.BROADCAST, buffer, buffer, 512, DataType.FLOAT32, null, stream, 100));
        assertEquals(
                "the native loop runs [ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER], not BROADCAST", unknown.getMessage());
        buffer.close();
        stream.close();
        comm.close();
        assertEquals(List.of(), api.misuse());
    }
}
