package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.HandleType;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.ForeignMemory.Classification;
import dev.collectives.runtime.ForeignMemory.Residence;
import dev.collectives.runtime.Result;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A root allocation of simulated device memory (an {@link Allocation}), or a view of one that {@code wrap} made. It
 * knows what still uses it, so that freeing it while it
 * is registered or captured in a live graph is refused (R5), and freeing it while stream work uses it waits for
 * that work, as {@code cudaFree}/{@code musaFree} synchronizes.
 */
final class SimMemory extends DeviceMemory {
    /** The tag of a host copy racing stream work (documented in docs/rules.md). */
    static final String HOST_COPY_RACE = "[SYNC host-copy]";

    private final int rank;
    private final Ledger ledger;
    /** The allocation this memory owns, or null for a view {@code wrap} made (the allocation's free closes it). */
    private final Allocation allocation;

    private int registrations;
    private int windows;
    private int graphUses;
    private int inFlight;
    /** What queued stream work reads and writes of this memory, until it ran: host copies must not race it. */
    private final List<Pin> pins = new ArrayList<>();

    private SimMemory(
            int rank,
            Ledger ledger,
            Allocation allocation,
            long head,
            long size,
            Allocator allocator,
            long physicalSize,
            long reservedSize,
            Set<HandleType> handleTypes,
            String foreignClass) {
        super(head, size, allocator, physicalSize, reservedSize, handleTypes, foreignClass);
        this.rank = rank;
        this.ledger = ledger;
        this.allocation = allocation;
    }

    /**
     * {@code reservedSize} bytes of address range whose head is aligned to {@code alignment}; {@code usableSize}
     * bytes of it are the memory, which the driver reports as device memory of {@code rank}: VMM unless legacy.
     */
    static SimMemory allocate(
            int rank,
            Ledger ledger,
            Allocator allocator,
            long usableSize,
            long reservedSize,
            long alignment,
            Set<HandleType> handleTypes) {
        if (usableSize < 0 || reservedSize < usableSize || alignment < 1) {
            throw CollectivesException.library(
                    Result.INVALID_ARGUMENT,
                    rank,
                    "memory allocation",
                    "usable " + usableSize + " bytes, reserved " + reservedSize + ", alignment " + alignment);
        }
        Allocation allocation = Allocation.allocate(
                rank,
                "memory allocation",
                usableSize,
                reservedSize,
                alignment,
                head -> new Classification(
                        Residence.DEVICE, rank, head, usableSize, allocator != Allocator.LEGACY, handleTypes));
        ledger.allocations.incrementAndGet();
        return new SimMemory(
                rank,
                ledger,
                allocation,
                allocation.head(),
                usableSize,
                allocator,
                usableSize,
                reservedSize,
                handleTypes,
                null);
    }

    /** Rank {@code rank}'s view of an allocation, as {@code wrap} found it; freeing it frees nothing. */
    static SimMemory wrapping(int rank, Classification found, String foreignClass) {
        return new SimMemory(
                rank,
                null,
                null,
                found.head(),
                found.size(),
                found.allocator(),
                found.size(),
                found.size(),
                found.handleTypes(),
                foreignClass);
    }

    /** The rank whose device this memory is on. */
    @Override
    public int rank() {
        return rank;
    }

    @Override
    public void copyIn(long offset, ByteBuffer src) {
        requireNoRace("copyFromHost", offset, src.remaining(), false);
        Kernels.view(address() + offset, src.remaining()).put(src);
    }

    @Override
    public void copyOut(long offset, ByteBuffer dst) {
        requireNoRace("copyToHost", offset, dst.remaining(), true);
        dst.put(Kernels.view(address() + offset, dst.remaining()));
    }

    /**
     * Stream work that reads (or, with {@code writes}, writes) {@code bytes} at {@code offset} was enqueued; fails if
     * the memory was freed. The work releases the pin once it ran.
     */
    synchronized Pin pin(String what, long offset, long bytes, boolean writes) {
        if (isClosed()) {
            throw CollectivesException.usage(rank, what + " uses " + this + ", which was already freed");
        }
        inFlight++;
        Pin pin = new Pin(what, offset, bytes, writes);
        pins.add(pin);
        return pin;
    }

    /** That stream work finished. */
    private synchronized void unpin(Pin pin) {
        pins.remove(pin);
        if (--inFlight == 0) {
            notifyAll();
        }
    }

    /**
     * [SYNC host-copy]: a host copy is synchronous and not ordered with stream work, so it races queued work on the
     * same bytes (a read races a queued write; a write races any queued use): the stream must be synchronized first.
     */
    private synchronized void requireNoRace(String copy, long offset, long bytes, boolean reads) {
        for (Pin pin : pins) {
            if ((pin.writes || !reads) && offset < pin.offset + pin.bytes && pin.offset < offset + bytes) {
                throw CollectivesException.usage(
                        rank,
                        HOST_COPY_RACE + " " + copy + " of bytes [" + offset + ", "
                                + (offset + bytes) + ") of " + this + " races " + pin.what
                                + ", still queued on a stream and "
                                + (pin.writes ? "writing" : "reading") + " bytes [" + pin.offset + ", "
                                + (pin.offset + pin.bytes)
                                + "); call stream.synchronize() before the copy (see docs/rules.md#sync-host-copy)");
            }
        }
    }

    /** One queued use of this memory. */
    final class Pin {
        private final String what;
        private final long offset;
        private final long bytes;
        private final boolean writes;

        private Pin(String what, long offset, long bytes, boolean writes) {
            this.what = what;
            this.offset = offset;
            this.bytes = bytes;
            this.writes = writes;
        }

        /** The work that pinned the memory ran. */
        void release() {
            unpin(this);
        }
    }

    synchronized void addRegistration() {
        registrations++;
    }

    synchronized void removeRegistration() {
        registrations--;
    }

    synchronized void addWindow() {
        windows++;
    }

    synchronized void removeWindow() {
        windows--;
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
        if (graphUses > 0) {
            throw CollectivesException.violation(Message.R5_FREE_IN_GRAPH, rank, this, graphUses);
        }
        if (registrations > 0) {
            throw CollectivesException.violation(Message.R6_FREE_REGISTERED, rank, this, registrations);
        }
        if (windows > 0) {
            throw CollectivesException.violation(Message.R12_FREE_WINDOWED, rank, this, windows);
        }
        Monitors.awaitUninterruptibly(this, () -> inFlight == 0);
        if (allocation != null) {
            allocation.free();
            ledger.allocations.decrementAndGet();
        }
    }
}
