package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Arrays;
import org.bytedeco.javacpp.LongPointer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Out-parameters that the library may fill after the call returned must be native memory the caller keeps: JavaCPP
 * passes a {@code long[]} as a copy released when the call returns, and a slot on the shim's stack dies with the
 * call. ncclCommSplit in a group stored its child into dead memory ("stack smashing detected" after
 * DeviceInitGpuTest#commSplit on NCCL 2.28.3), and a non-blocking communicator's init, split, shrink and window
 * registration store theirs when the work completes, from the library's thread (a crash of the JVM in
 * DeviceSplitGpuTest on NCCL 2.28.3). Reflection only: no library, no GPU.
 */
class NativeShimOutParametersTest {
    @ParameterizedTest
    @CsvSource({"commInitRank, 1", "commSplit, 4", "commShrink, 4", "windowRegister, 5"})
    void whatTheLibraryStoresLateGoesToNativeMemoryThatOutlivesTheCall(String method, int slot) {
        Method call = Arrays.stream(NativeShim.class.getDeclaredMethods())
                .filter(m -> m.getName().equals(method))
                .findFirst()
                .orElseThrow();

        assertEquals(LongPointer.class, call.getParameterTypes()[slot], method + "'s out-parameter");
    }
}
