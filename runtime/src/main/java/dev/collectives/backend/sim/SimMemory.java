package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.HandleType;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.ForeignMemory;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Rule;

import org.bytedeco.javacpp.Pointer;

import java.util.Set;

/**
 * A root allocation of simulated device memory: zeroed host memory from {@code calloc}, over-allocated so that the
 * head can be aligned as the real allocator aligns it. It knows what still uses it, so that freeing it while it
 * is registered or captured in a live graph is refused (R5), and freeing it while stream work uses it waits for
 * that work, as {@code musaFree} synchronizes.
 */
final class SimMemory extends DeviceMemory {
    private final int rank;
    private final Ledger ledger;
    /** The host block, or null for a framework's memory ({@link SimForeignMemory} frees it). */
    private final Pointer block;
    private int registrations;
    private int graphUses;
    private int inFlight;

    private SimMemory(int rank, Ledger ledger, Pointer block, long head, long size, Allocator allocator,
                      long physicalSize, long reservedSize, Set<HandleType> handleTypes, String foreignClass) {
        super(head, size, allocator, physicalSize, reservedSize, handleTypes, foreignClass);
        this.rank = rank;
        this.ledger = ledger;
        this.block = block;
    }

    /**
     * {@code reservedSize} bytes of address range whose head is aligned to {@code alignment}; {@code usableSize}
     * bytes of it are the memory.
     */
    static SimMemory allocate(int rank, Ledger ledger, Allocator allocator, long usableSize, long reservedSize,
                              long alignment, Set<HandleType> handleTypes) {
        if (usableSize < 0 || reservedSize < usableSize || alignment < 1) {
            throw CollectivesException.library(Result.INVALID_ARGUMENT, rank, "memory allocation",
                    "usable " + usableSize + " bytes, reserved " + reservedSize + ", alignment " + alignment);
        }
        Pointer block = Pointer.calloc(Math.max(1, reservedSize + alignment - 1), 1);
        if (block == null || block.isNull()) {
            throw CollectivesException.library(Result.SYSTEM_ERROR, rank, "memory allocation",
                    "out of host memory for " + reservedSize + " bytes");
        }
        long head = Math.floorDiv(block.address() + alignment - 1, alignment) * alignment;
        ledger.allocations.incrementAndGet();
        return new SimMemory(rank, ledger, block, head, usableSize, allocator, usableSize, reservedSize,
                handleTypes, null);
    }

    /** Rank {@code rank}'s view of a framework's memory, as {@code wrap} found it; freeing it frees nothing. */
    static SimMemory wrapping(int rank, ForeignMemory.Classification found, String foreignClass) {
        return new SimMemory(rank, null, null, found.head(), found.size(), found.allocator(), found.size(),
                found.size(), found.handleTypes(), foreignClass);
    }

    /** The rank whose device this memory is on. */
    int rank() {
        return rank;
    }

    @Override
    public void copyIn(long offset, Pointer src, long bytes) {
        Kernels.copy(src.address() + src.position() * src.sizeof(), address() + offset, bytes);
    }

    @Override
    public void copyOut(long offset, Pointer dst, long bytes) {
        Kernels.copy(address() + offset, dst.address() + dst.position() * dst.sizeof(), bytes);
    }

    /** Stream work that reads or writes this memory was enqueued; fails if the memory was freed. */
    synchronized void pin(String what) {
        if (isClosed()) {
            throw CollectivesException.usage(rank, what + " uses " + this + ", which was already freed");
        }
        inFlight++;
    }

    /** That stream work finished. */
    synchronized void unpin() {
        if (--inFlight == 0) {
            notifyAll();
        }
    }

    synchronized void addRegistration() {
        registrations++;
    }

    synchronized void removeRegistration() {
        registrations--;
    }

    synchronized void addGraphUse() {
        graphUses++;
    }

    synchronized void removeGraphUse() {
        graphUses--;
    }

    @Override
    protected void free() {
        // Called by DeviceMemory.close() with this object's monitor held.
        if (registrations > 0) {
            throw CollectivesException.violation(Rule.R5_GRAPH_LIFETIME, rank, "cannot free " + this + ": it is"
                    + " still registered (" + registrations + " live registration(s) or window(s)); deregister"
                    + " it first");
        }
        if (graphUses > 0) {
            throw CollectivesException.violation(Rule.R5_GRAPH_LIFETIME, rank, "cannot free " + this + ": "
                    + graphUses + " live graph(s) or graph exec(s) use it; destroy the graphs before their buffers");
        }
        Monitors.awaitUninterruptibly(this, () -> inFlight == 0);
        if (block != null) {
            Pointer.free(block);
            ledger.allocations.decrementAndGet();
        }
    }
}
