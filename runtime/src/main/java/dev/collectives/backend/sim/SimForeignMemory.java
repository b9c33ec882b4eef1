package dev.collectives.backend.sim;

import dev.collectives.annotation.HandleType;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.ForeignMemory.Classification;
import dev.collectives.runtime.ForeignMemory.Residence;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.VirtualMemory;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * Memory that a framework owns on the simulated devices, made outside any pipeline or communicator: one factory
 * per class of memory a real driver tells apart. {@link SimCommunicator#wrap} classifies an address by asking the
 * simulated driver ({@link Allocation}), as the native backends ask the driver. A simulated rank's device index is
 * its rank.
 * <p>{@link #close()} is the framework's free: it is refused (R5) while a buffer wrapped from this memory is still
 * registered or used by a live graph, waits for stream work that uses it, and afterwards every wrapped buffer of
 * it is freed memory.
 */
public final class SimForeignMemory implements AutoCloseable {
    private static final long LEGACY_ALIGNMENT = 256;

    private final Allocation allocation;
    private boolean closed;

    private SimForeignMemory(long bytes, long alignment, Classification classFor) {
        if (bytes <= 0) {
            throw CollectivesException.library(
                    Result.INVALID_ARGUMENT, -1, "framework allocation", bytes + " bytes: the size must be positive");
        }
        this.allocation = Allocation.allocate(
                -1,
                "framework allocation",
                bytes,
                bytes,
                alignment,
                head -> classFor.residence() == Residence.DEVICE
                        ? new Classification(
                                Residence.DEVICE,
                                classFor.device(),
                                head,
                                bytes,
                                classFor.vmm(),
                                classFor.handleTypes())
                        : classFor);
    }

    /** {@code cudaMalloc}/{@code musaMalloc} on {@code device}: legacy memory (R9). */
    public static SimForeignMemory deviceMalloc(int device, long bytes) {
        return new SimForeignMemory(
                bytes, LEGACY_ALIGNMENT, new Classification(Residence.DEVICE, device, 0, 0, false, Set.of()));
    }

    /**
     * {@code cuMemCreate} with {@code handleTypes} (none: not shareable), reserved and mapped on {@code device}:
     * {@code bytes} rounded up to {@code granularity}, the head aligned to it. {@code ncclMemAlloc} memory is this
     * with POSIX fd handles (and FABRIC where the device has them) at the recommended granularity.
     */
    public static SimForeignMemory vmm(int device, long bytes, long granularity, HandleType... handleTypes) {
        return new SimForeignMemory(
                VirtualMemory.roundUp(bytes, granularity),
                granularity,
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
        return allocation.head();
    }

    public long size() {
        return allocation.size();
    }

    /**
     * The memory as a direct buffer in native byte order: what the framework's own kernels on the simulated
     * device (see {@link SimForeignStream#launch}) read and write.
     */
    public synchronized ByteBuffer asByteBuffer() {
        if (closed) {
            throw CollectivesException.usage(-1, this + " was freed");
        }
        return Kernels.view(allocation.head(), allocation.size());
    }

    /** The framework's free; see the class comment. Idempotent. */
    @Override
    public synchronized void close() {
        allocation.free();
        closed = true;
    }

    @Override
    public String toString() {
        return "framework memory at 0x" + Long.toHexString(allocation.head()) + " (" + allocation.size() + " bytes, "
                + allocation.reported() + ")";
    }
}
