package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Arrays;
import org.bytedeco.javacpp.LongPointer;
import org.junit.jupiter.api.Test;

/**
 * Out-parameters that the library fills only at GroupEnd must be native memory the caller keeps: JavaCPP passes a
 * {@code long[]} as a copy released when the call returns, and a stack slot in the shim dies with the call. Either
 * made ncclCommSplit in a group store the child communicator into dead memory ("stack smashing detected" after
 * DeviceInitGpuTest#commSplit on NCCL 2.28.3). Reflection only: no library, no GPU.
 */
class NativeShimOutParametersTest {
    @Test
    void commSplitTakesNativeMemoryThatOutlivesTheCall() {
        Method split = Arrays.stream(NativeShim.class.getDeclaredMethods())
                .filter(m -> m.getName().equals("commSplit"))
                .findFirst()
                .orElseThrow();

        assertEquals(LongPointer.class, split.getParameterTypes()[4], "the child communicator's slot");
    }
}
