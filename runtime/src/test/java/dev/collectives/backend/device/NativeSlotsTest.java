package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.annotation.OpKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shim's table is the one source of the slot numbers: the Java side finds each slot it names there, by name. */
class NativeSlotsTest {
    @Test
    void everySlotTheBackendNamesIsFoundInTheCompiledShimByItsLibraryAndName() {
        NativeShimApi shim = NativeShimApi.INSTANCE;
        shim.load();
        int[] numbers = NativeLibrary.Slots.numberedBy(NativeLibrary.Slots.table(shim));
        for (NativeLibrary.Slots slot : NativeLibrary.Slots.values()) {
            int number = numbers[slot.ordinal()];
            assertEquals(slot.genericName, shim.slotName(number), slot.name());
            assertEquals(slot.role, shim.slotLibrary(number), slot.name());
        }
        assertEquals(numbers.length, Arrays.stream(numbers).distinct().count(), "one slot each");
    }

    @Test
    void everyOpsFunctionIsFoundInTheCompiledShimByItsName() {
        NativeShimApi shim = NativeShimApi.INSTANCE;
        shim.load();
        int[] numbers = NativeLibrary.Slots.ofOps(NativeLibrary.Slots.table(shim));
        for (OpKind kind : OpKind.values()) {
            assertEquals(kind.cName(), shim.slotName(numbers[kind.ordinal()]), kind.name());
            assertEquals(0, shim.slotLibrary(numbers[kind.ordinal()]), kind.name());
        }
    }

    @Test
    void theCompiledShimHoldsTheTableOfItsHeader() {
        NativeShimApi shim = NativeShimApi.INSTANCE;
        shim.load();
        assertEquals(table(new ScriptedNativeApi()), table(shim));
    }

    /** Each slot as "library:name:required", in the table's order. */
    private static List<String> table(NativeApi api) {
        List<String> rows = new ArrayList<>();
        for (int slot = 0; slot < api.slotCount(); slot++) {
            rows.add(api.slotLibrary(slot) + ":" + api.slotName(slot) + ":" + api.slotRequired(slot));
        }
        return rows;
    }
}
