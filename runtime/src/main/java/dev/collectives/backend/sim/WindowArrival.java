package dev.collectives.backend.sim;

import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.internal.CallArguments;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** What a rank brings to a window registration or deregistration, and what the ranks must agree on (R12). */
record WindowArrival(boolean register, DeviceBuffer buffer, boolean symmetric) {
    static CallVerdict check(List<WindowArrival> all) {
        if (all.stream().anyMatch(a -> a.register != all.get(0).register)) {
            return CallVerdict.violation(
                    Message.R14_WINDOW_CALLS, describe(all, a -> a.register ? "registerWindow" : "window close"));
        }
        if (!all.get(0).register) {
            return null;
        }
        List<String> notVmm = new ArrayList<>();
        List<String> unaligned = new ArrayList<>();
        for (int r = 0; r < all.size(); r++) {
            DeviceBuffer b = all.get(r).buffer;
            if (!b.memory().isVirtualMemory()) {
                notVmm.add("rank " + r + ": " + b);
            }
            if (!CallArguments.isAligned(b)) {
                unaligned.add("rank " + r + ": " + CallArguments.head(b));
            }
        }
        if (!notVmm.isEmpty()) {
            return CallVerdict.violation(Message.R12_LEGACY_MEMORY, "{nccl,mccl}MemAlloc", String.join("; ", notVmm));
        }
        if (!unaligned.isEmpty()) {
            return CallVerdict.violation(
                    Message.R12_HEAD_MISALIGNED, Rule.WINDOW_ALIGNMENT, String.join("; ", unaligned));
        }
        if (all.stream().anyMatch(a -> a.symmetric != all.get(0).symmetric)) {
            return CallVerdict.violation(Message.R14_WINDOW_SYMMETRY, describe(all, a -> String.valueOf(a.symmetric)));
        }
        if (all.get(0).symmetric
                && all.stream()
                        .anyMatch(
                                a -> a.buffer.headOffset() != all.get(0).buffer.headOffset())) {
            return CallVerdict.violation(
                    Message.R12_SYMMETRIC_OFFSETS, describe(all, a -> a.buffer.headOffset() + " bytes"));
        }
        return null;
    }

    private static String describe(List<WindowArrival> all, Function<WindowArrival, String> f) {
        List<String> values = new ArrayList<>();
        for (int r = 0; r < all.size(); r++) {
            values.add("rank " + r + ": " + f.apply(all.get(r)));
        }
        return String.join(", ", values);
    }
}
