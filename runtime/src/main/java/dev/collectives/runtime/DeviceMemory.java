package dev.collectives.runtime;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.HandleType;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * One root allocation, made by a backend: its head address, usable size and, for VMM memory, the physical and
 * reserved sizes and handle types R11 is checked against. Backends implement the copies and the free.
 */
public abstract class DeviceMemory implements AutoCloseable {
    private final long address;
    private final long size;
    private final Allocator allocator;
    private final long physicalSize;
    private final long reservedSize;
    private final Set<HandleType> handleTypes;
    private final String foreignClass;
    private volatile boolean closed;
    /** What the memory is to the user ("buffer recvbuff of demo.Ring"), for messages; null where nothing named it. */
    private volatile String purpose;

    /**
     * @param size         usable bytes from {@code address}
     * @param physicalSize bytes of physical memory backing it (VMM), or {@code size}
     * @param reservedSize bytes of virtual address range reserved (VMM), or {@code size}
     */
    protected DeviceMemory(
            long address,
            long size,
            Allocator allocator,
            long physicalSize,
            long reservedSize,
            Set<HandleType> handleTypes) {
        this(address, size, allocator, physicalSize, reservedSize, handleTypes, null);
    }

    /**
     * Memory a framework owns, wrapped by {@link Communicator#wrap}: {@code foreignClass} is what the driver said
     * it is (see {@link ForeignMemory#describe}); {@code allocator} is VMM or LEGACY accordingly.
     */
    protected DeviceMemory(
            long address,
            long size,
            Allocator allocator,
            long physicalSize,
            long reservedSize,
            Set<HandleType> handleTypes,
            String foreignClass) {
        this.foreignClass = foreignClass;
        this.address = address;
        this.size = size;
        this.allocator = allocator;
        this.physicalSize = physicalSize;
        this.reservedSize = reservedSize;
        this.handleTypes = Set.copyOf(handleTypes);
    }

    /** The head address of the allocation. */
    public final long address() {
        return address;
    }

    /** Usable bytes from {@link #address()}. */
    public final long size() {
        return size;
    }

    /** How it was made. */
    public final Allocator allocator() {
        return allocator;
    }

    /** Bytes of physical memory backing it (VMM), or {@link #size()}. */
    public final long physicalSize() {
        return physicalSize;
    }

    /** Bytes of virtual address range reserved (VMM), or {@link #size()}. */
    public final long reservedSize() {
        return reservedSize;
    }

    /** The handle types its memory exports (R11). */
    public final Set<HandleType> handleTypes() {
        return handleTypes;
    }

    /** VMM or ncclMemAlloc/mcclMemAlloc memory: what R3, R11 and R12 ask for. */
    public final boolean isVirtualMemory() {
        return allocator != Allocator.LEGACY;
    }

    /** Owned by a framework, not by this project: wrapped, never freed here. */
    public final boolean isForeign() {
        return foreignClass != null;
    }

    /** The allocator of owned memory; for foreign memory the class found, e.g. "foreign, VMM with POSIX fd". */
    public final String origin() {
        return isForeign() ? foreignClass : allocator.name();
    }

    /**
     * The rank whose device holds it, which failures about it name; -1 where the backend does not say. Backends
     * override it.
     */
    public int rank() {
        return -1;
    }

    /** Whether it was freed. */
    public final boolean isClosed() {
        return closed;
    }

    /**
     * Synchronous host-to-device copy of {@code src.remaining()} bytes (a heap or a direct buffer) to
     * {@code offset}; {@code src}'s position may move.
     */
    public abstract void copyIn(long offset, ByteBuffer src);

    /**
     * Synchronous device-to-host copy of {@code dst.remaining()} bytes at {@code offset} into {@code dst} (a heap or
     * a direct buffer); {@code dst}'s position may move.
     */
    public abstract void copyOut(long offset, ByteBuffer dst);

    /** Frees the memory; may refuse with R5 when a live graph or registration still uses it. */
    protected abstract void free();

    /** Frees once; later calls do nothing. */
    @Override
    public final synchronized void close() {
        if (!closed) {
            free();
            closed = true;
        }
    }

    /** Names what the memory is for in every message that shows it ({@link DeviceBuffer#named}). */
    void describeAs(String purpose) {
        this.purpose = purpose;
    }

    @Override
    public String toString() {
        String memory = origin() + " memory at 0x" + Long.toHexString(address) + " (" + size + " bytes)";
        String named = purpose;
        return named == null ? memory : named + " (" + memory + ")";
    }
}
