package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Availability;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Peers;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/** Runs on machines without GPUs: the backends are found, and say exactly what is missing. */
class DeviceBackendUnavailableTest {
    static boolean ncclAbsent() {
        return !(NativeLibrary.open(Dialect.NCCL) instanceof NativeLibrary);
    }

    @Test
    void bothNativeBackendsAreRegistered() {
        List<String> names = Backends.all().stream().map(Backend::name).collect(Collectors.toList());
        assertTrue(names.contains("nccl"), names.toString());
        assertTrue(names.contains("mccl"), names.toString());
    }

    @Test
    void theShimLoadsWithoutVendorLibraries() {
        NativeShimApi.INSTANCE.load();
        assertTrue(NativeShimApi.INSTANCE.slotCount() > 60);
    }

    @Test
    @EnabledIf("ncclAbsent")
    void unavailableNcclNamesTheLibraryThePathsAndTheOverride() {
        Availability availability = new NcclBackend().availability();
        assertFalse(availability.isAvailable());
        String reason = availability.reason();
        assertTrue(reason.contains("cannot open the collective library of nccl"), reason);
        assertTrue(reason.contains("libnccl.so.2"), reason);
        assertTrue(reason.contains("collectives.nccl.ccl.library"), reason);
        assertTrue(reason.contains("COLLECTIVES_NCCL_CCL_LIBRARY"), reason);

        CollectivesException e = assertThrows(CollectivesException.class, () -> Backends.get("nccl"));
        assertTrue(e.getMessage().contains("backend 'nccl' is unavailable: cannot open"), e.getMessage());
        assertThrows(CollectivesException.class, () -> new NcclBackend().local(2));
        CollectivesException id = assertThrows(CollectivesException.class, () -> new NcclBackend().uniqueId());
        assertTrue(id.getMessage().contains("backend 'nccl' is unavailable: cannot open"), id.getMessage());
        CollectivesException wrap = assertThrows(
                CollectivesException.class, () -> new NcclBackend().wrapCommunicator(0x1000, Peers.FOREIGN));
        assertTrue(wrap.getMessage().contains("backend 'nccl' is unavailable: cannot open"), wrap.getMessage());
    }

    @Test
    void aLibraryWithoutTheDialectsSymbolsNamesTheMissingSymbol() {
        List<String> properties = List.of(
                Dialect.MCCL.libraryProperty(0), Dialect.MCCL.libraryProperty(1), Dialect.MCCL.libraryProperty(2));
        properties.forEach(p -> System.setProperty(p, "libc.so.6"));
        try {
            Object opened = NativeLibrary.tryOpen(Dialect.MCCL, NativeShimApi.INSTANCE);
            String reason = assertInstanceOf(String.class, opened);
            assertTrue(reason.contains("lacks the symbol mcclGetVersion"), reason);
            assertTrue(reason.contains("libc.so.6"), reason);
        } finally {
            properties.forEach(System::clearProperty);
        }
    }

    @Test
    void namesThatDifferBeyondThePrefixComeFromTheTable() {
        assertEquals("mcclCommMuDevice", Dialect.MCCL.symbol(0, "CommDevice"));
        assertEquals("ncclCommCuDevice", Dialect.NCCL.symbol(0, "CommDevice"));
        assertEquals("mcclAllReduce", Dialect.MCCL.ccl("AllReduce"));
        assertEquals("musaStreamBeginCapture", Dialect.MCCL.symbol(1, "StreamBeginCapture"));
        assertEquals("cuMemCreate", Dialect.NCCL.symbol(2, "MemCreate"));
        assertEquals("mcclFp8E4M3", Dialect.MCCL.typeName(DataType.FP8_E4M3));
        assertEquals("ncclFloat8e5m2", Dialect.NCCL.typeName(DataType.FP8_E5M2));
        assertEquals("ncclFloat32", Dialect.NCCL.typeName(DataType.FLOAT32));
        assertEquals("MCCL_LEGACY_MUSA_REGISTER", Dialect.MCCL.legacyRegisterVariable());
        assertEquals("NCCL_LEGACY_CUDA_REGISTER", Dialect.NCCL.legacyRegisterVariable());
    }
}
