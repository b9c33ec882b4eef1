package dev.collectives.backend.sim;

import dev.collectives.annotation.HandleType;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.ForeignMemory.Classification;
import dev.collectives.runtime.ForeignMemory.Residence;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.VirtualMemory;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Memory that a framework owns on the simulated devices, made outside any pipeline or communicator: one factory
 * per class of memory a real driver tells apart. {@link SimCommunicator#wrap} classifies an address by looking it
 * up here, as the native backends ask the driver. A simulated rank's device index is its rank.
 * <p>{@link #close()} is the framework's free: it is refused (R5) while a buffer wrapped from this memory is still
 * registered or used by a live graph, waits for stream work that uses it, and afterwards every wrapped buffer of
 * it is freed memory.
 */
public final class SimForeignMemory implements AutoCloseable {
    private static final long LEGACY_ALIGNMENT = 256;
    private static final ConcurrentSkipListMap<Long, SimForeignMemory> BY_HEAD = new ConcurrentSkipListMap<>();

    private final Pointer block;
    private final long head;
    private final long size;
    private final Classification classification;
    /** The views {@code wrap} made that are still referenced: the free closes them. */
    private final Set<SimMemory> wrapped = Collections.newSetFromMap(new WeakHashMap<>());
    private boolean closed;

    private SimForeignMemory(long bytes, long alignment, Classification classFor) {
        if (bytes <= 0) {
            throw CollectivesException.library(Result.INVALID_ARGUMENT, -1, "framework allocation",
                    bytes + " bytes: the size must be positive");
        }
        this.block = Pointer.calloc(bytes + alignment - 1, 1);
        if (block == null || block.isNull()) {
            throw CollectivesException.library(Result.SYSTEM_ERROR, -1, "framework allocation",
                    "out of host memory for " + bytes + " bytes");
        }
        this.head = Math.floorDiv(block.address() + alignment - 1, alignment) * alignment;
        this.size = bytes;
        this.classification = classFor.residence() == Residence.DEVICE
                ? new Classification(Residence.DEVICE, classFor.device(), head, bytes, classFor.vmm(),
                classFor.handleTypes())
                : classFor;
        BY_HEAD.put(head, this);
    }

    /** {@code cudaMalloc}/{@code musaMalloc} on {@code device}: legacy memory (R9). */
    public static SimForeignMemory deviceMalloc(int device, long bytes) {
        return new SimForeignMemory(bytes, LEGACY_ALIGNMENT,
                new Classification(Residence.DEVICE, device, 0, 0, false, Set.of()));
    }

    /**
     * {@code cuMemCreate} with {@code handleTypes} (none: not shareable), reserved and mapped on {@code device}:
     * {@code bytes} rounded up to {@code granularity}, the head aligned to it. {@code ncclMemAlloc} memory is this
     * with POSIX fd handles (and FABRIC where the device has them) at the recommended granularity.
     */
    public static SimForeignMemory vmm(int device, long bytes, long granularity, HandleType... handleTypes) {
        return new SimForeignMemory(VirtualMemory.roundUp(bytes, granularity), granularity,
                new Classification(Residence.DEVICE, device, 0, 0, true, Set.of(handleTypes)));
    }

    /** {@code cudaMallocHost}: page-locked host memory, which collectives refuse. */
    public static SimForeignMemory pinnedHost(long bytes) {
        return new SimForeignMemory(bytes, 1, Classification.notDevice(Residence.PINNED_HOST));
    }

    /** {@code cudaMallocManaged}: managed memory, which collectives refuse. */
    public static SimForeignMemory managed(long bytes) {
        return new SimForeignMemory(bytes, 1, Classification.notDevice(Residence.MANAGED));
    }

    /** {@code malloc}: ordinary host memory the driver does not know, which collectives refuse. */
    public static SimForeignMemory pageableHost(long bytes) {
        return new SimForeignMemory(bytes, 1, Classification.notDevice(Residence.UNKNOWN));
    }

    /** The head address. */
    public long address() {
        return head;
    }

    public long size() {
        return size;
    }

    /**
     * The memory as a direct buffer in native byte order: what the framework's own kernels on the simulated
     * device (see {@link SimForeignStream#launch}) read and write.
     */
    public synchronized ByteBuffer asByteBuffer() {
        if (closed) {
            throw CollectivesException.usage(-1, this + " was freed");
        }
        long offset = head - block.address();
        return new BytePointer(block).position(offset).limit(offset + size).asByteBuffer()
                .order(ByteOrder.nativeOrder());
    }

    /** What a driver reports for {@code address}: the allocation holding it, or UNKNOWN. */
    static Classification classify(long address) {
        Map.Entry<Long, SimForeignMemory> entry = BY_HEAD.floorEntry(address);
        if (entry == null || address >= entry.getKey() + entry.getValue().size) {
            return Classification.notDevice(Residence.UNKNOWN);
        }
        return entry.getValue().classification;
    }

    /** Rank {@code rank}'s view of the device memory {@code found}, freed when the framework frees it. */
    static SimMemory wrap(int rank, long address, Classification found, String foreignClass) {
        SimForeignMemory owner = BY_HEAD.get(found.head());
        SimMemory memory = SimMemory.wrapping(rank, found, foreignClass);
        synchronized (owner == null ? SimForeignMemory.class : owner) {
            if (owner == null || owner.closed) {
                throw CollectivesException.usage(rank, "wrap of 0x" + Long.toHexString(address) + ": "
                        + "the framework freed that memory");
            }
            owner.wrapped.add(memory);
        }
        return memory;
    }

    /** The framework's free; see the class comment. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        for (SimMemory memory : List.copyOf(wrapped)) {
            memory.close();
        }
        closed = true;
        wrapped.clear();
        BY_HEAD.remove(head);
        Pointer.free(block);
    }

    @Override
    public String toString() {
        return "framework memory at 0x" + Long.toHexString(head) + " (" + size + " bytes, " + classification + ")";
    }
}
