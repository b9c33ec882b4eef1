package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.ForeignMemory.Classification;
import dev.collectives.runtime.ForeignMemory.Residence;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.spi.HostMemory;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongFunction;

/**
 * One allocation of the simulated driver: zeroed host memory whose head is aligned as the real allocator aligns it,
 * and what the driver reports for the addresses in it. Like a real driver, the sim knows every live allocation, the
 * project's own ({@link SimMemory}) and a framework's ({@link SimForeignMemory}) alike, so that {@link #classify}
 * answers as {@code PointerGetAttributes}, {@code MemGetAddressRange} and {@code MemRetainAllocationHandle} do on
 * a GPU. It keeps the views {@code wrap} made of it, which its free closes first.
 */
final class Allocation {
    private static final ConcurrentSkipListMap<Long, Allocation> LIVE = new ConcurrentSkipListMap<>();

    /** The host block ({@link HostMemory}), which may start before the aligned head. */
    private final long block;

    private final long head;
    private final long size;
    private final Classification reported;
    /** The views {@code wrap} made that are still referenced. */
    private final Set<SimMemory> views = Collections.newSetFromMap(new WeakHashMap<>());

    private boolean freed;

    private Allocation(long block, long head, long size, Classification reported) {
        this.block = block;
        this.head = head;
        this.size = size;
        this.reported = reported;
    }

    /**
     * {@code reserved} bytes of zeroed host memory whose head is aligned to {@code alignment}; the driver knows the
     * first {@code size} of them (the mapped part of a VMM reservation) as {@code reported} says, given the head.
     *
     * @param rank the rank allocating, for the message if host memory runs out (-1: a framework)
     * @param what the call, for that message
     */
    static Allocation allocate(
            int rank, String what, long size, long reserved, long alignment, LongFunction<Classification> reported) {
        long block;
        try {
            block = HostMemory.allocate(reserved + alignment - 1);
        } catch (OutOfMemoryError e) {
            throw CollectivesException.library(Result.SYSTEM_ERROR, rank, what, e.getMessage());
        }
        long head = Math.floorDiv(block + alignment - 1, alignment) * alignment;
        Allocation allocation = new Allocation(block, head, size, reported.apply(head));
        LIVE.put(head, allocation);
        return allocation;
    }

    /** The head address. */
    long head() {
        return head;
    }

    /** The bytes the driver knows from the head. */
    long size() {
        return size;
    }

    Classification reported() {
        return reported;
    }

    /** What the driver reports for {@code address}: the allocation holding it, or UNKNOWN. */
    static Classification classify(long address) {
        Map.Entry<Long, Allocation> entry = LIVE.floorEntry(address);
        if (entry == null || address >= entry.getKey() + entry.getValue().size) {
            return Classification.notDevice(Residence.UNKNOWN);
        }
        return entry.getValue().reported;
    }

    /** Rank {@code rank}'s view of the device memory {@code found}, closed when its allocation is freed. */
    static SimMemory wrap(int rank, long address, Classification found, String foreignClass) {
        Allocation owner = LIVE.get(found.head());
        SimMemory memory = SimMemory.wrapping(rank, found, foreignClass);
        synchronized (owner == null ? Allocation.class : owner) {
            if (owner == null || owner.freed) {
                throw CollectivesException.usage(
                        rank, "wrap of 0x" + Long.toHexString(address) + ": " + "the memory was freed");
            }
            owner.views.add(memory);
        }
        return memory;
    }

    /**
     * Closes the views {@code wrap} made, which refuses (R5) while one is registered or used by a live graph, then
     * forgets the allocation and frees its host memory. Idempotent.
     */
    synchronized void free() {
        if (freed) {
            return;
        }
        for (SimMemory view : List.copyOf(views)) {
            view.close();
        }
        freed = true;
        views.clear();
        LIVE.remove(head);
        HostMemory.free(block);
    }
}
