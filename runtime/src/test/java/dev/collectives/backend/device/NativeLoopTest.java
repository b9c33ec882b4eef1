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
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

        NativeLoop.enqueue(
                comm, OpKind.ALL_REDUCE, buffer, buffer, 1024, DataType.FLOAT32, ReduceOp.SUM, 0, stream, 100);
        assertEquals(1, api.count("benchEnqueue"));
        api.failing("benchEnqueue", Result.REMOTE_ERROR.code());
        CollectivesException e = assertThrows(
                CollectivesException.class,
                () -> NativeLoop.enqueue(
                        comm, OpKind.ALL_GATHER, buffer, buffer, 512, DataType.FLOAT32, null, 0, stream, 100));
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: ncclAllGather of ncclFloat32 failed: remote process exited or there "
                        + "was a network error",
                e.getMessage());
        IllegalArgumentException unknown = assertThrows(
                IllegalArgumentException.class,
                () -> NativeLoop.enqueue(comm, OpKind.SEND, buffer, buffer, 512, DataType.FLOAT32, null, 0, stream, 1));
        assertEquals(
                "the native loop runs [ALL_REDUCE, BROADCAST, REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, "
                        + "SCATTER], not SEND",
                unknown.getMessage());
        buffer.close();
        stream.close();
        comm.close();
        assertEquals(List.of(), api.misuse());
    }

    @Test
    void aFunctionTheLibraryLacksHasNoLoop() {
        ScriptedNativeApi older = new ScriptedNativeApi().lacking("Gather");
        DeviceCommunicator comm = older.communicator(0, 2);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> NativeLoop.enqueue(comm, OpKind.GATHER, buffer, buffer, 8, DataType.FLOAT32, null, 0, stream, 1));
        assertEquals("the native loop has no gather here: the library has no ncclGather", e.getMessage());
        assertEquals(0, older.count("benchEnqueue"));
        buffer.close();
        stream.close();
        comm.close();
    }

    @Test
    void theShimNumbersEveryOpByItsPlaceInTheCatalogue() throws IOException {
        String header;
        try (InputStream in = NativeLoopTest.class.getResourceAsStream("collectives_device.h")) {
            header = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher m = Pattern.compile("#define CX_OP_(\\w+) (\\d+)").matcher(header);
        List<String> kinds = new ArrayList<>();
        while (m.find()) {
            assertEquals(kinds.size(), Integer.parseInt(m.group(2)), m.group());
            kinds.add(m.group(1));
        }
        assertEquals(Arrays.stream(OpKind.values()).map(OpKind::name).toList(), kinds);
        for (OpKind kind : OpKind.values()) {
            assertTrue(header.contains("case CX_OP_" + kind.name() + ":"), "the shim's case of " + kind);
        }
    }
}
