package dev.collectives.backend.sim;

import dev.collectives.runtime.DeviceBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * A rank's local registrations (R6): one registration per allocation, shared by the handles of every
 * {@code register} call on it, as the library caches them, and released with the last handle.
 */
final class RegistrationCache {
    private final Ledger ledger;
    private final Map<SimMemory, Integer> handles = new HashMap<>();

    RegistrationCache(Ledger ledger) {
        this.ledger = ledger;
    }

    /** One more handle of {@code memory}; the first registers it. */
    synchronized void add(SimMemory memory) {
        int references = handles.getOrDefault(memory, 0);
        if (references == 0) {
            memory.addRegistration();
            ledger.registrations.incrementAndGet();
        }
        handles.put(memory, references + 1);
    }

    /** One handle of {@code memory} was closed; the last one deregisters it. */
    synchronized void release(SimMemory memory) {
        int references = handles.getOrDefault(memory, 0);
        if (references == 1) {
            handles.remove(memory);
            memory.removeRegistration();
            ledger.registrations.decrementAndGet();
        } else if (references > 1) {
            handles.put(memory, references - 1);
        }
    }

    /** Whether the allocation {@code buffer} lies in is registered. */
    synchronized boolean contains(DeviceBuffer buffer) {
        return handles.containsKey((SimMemory) buffer.memory());
    }
}
