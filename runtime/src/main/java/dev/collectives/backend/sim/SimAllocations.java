package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.ForeignMemory;
import dev.collectives.runtime.QualifiedVmmAllocator;
import dev.collectives.runtime.VirtualMemory;
import dev.collectives.runtime.internal.AllocatorRule;
import java.util.Set;

/**
 * The memory a rank's communicator makes on its simulated device: by {@link Allocator} (MEM_ALLOC rounded to the
 * granularity, as {@code ncclMemAlloc} maps it; VMM through the project's qualified allocator; LEGACY as
 * {@code cudaMalloc}), through a custom {@link DeviceAllocator} checked against R11, and foreign memory wrapped.
 * The caller checked the count ({@code bytes}) and that the communicator is open.
 */
final class SimAllocations {
    private static final long LEGACY_ALIGNMENT = 256;

    private final int rank;
    private final int device;
    private final SimConfig config;
    private final Ledger ledger;
    private final SimVirtualMemory customVmm;
    private final SimVirtualMemory projectVmm;

    SimAllocations(int rank, int device, SimConfig config, Ledger ledger) {
        this.rank = rank;
        this.device = device;
        this.config = config;
        this.ledger = ledger;
        this.customVmm = new SimVirtualMemory(device, ledger, config, Allocator.CUSTOM);
        this.projectVmm = new SimVirtualMemory(device, ledger, config, Allocator.VMM);
    }

    /** The virtual memory custom allocators map with; what it maps is labelled CUSTOM. */
    SimVirtualMemory customVmm() {
        return customVmm;
    }

    DeviceBuffer allocate(Allocator allocator, DataType type, long count, long bytes) {
        long granularity = config.granularity();
        switch (allocator) {
            case MEM_ALLOC: {
                long rounded = VirtualMemory.roundUp(bytes, granularity);
                return DeviceBuffer.root(
                        SimMemory.allocate(
                                device,
                                ledger,
                                Allocator.MEM_ALLOC,
                                rounded,
                                rounded,
                                granularity,
                                projectVmm.qualifiedHandleTypes()),
                        type,
                        count);
            }
            case VMM:
                return checkedRoot(new QualifiedVmmAllocator(), projectVmm, type, count, bytes);
            case LEGACY:
                return DeviceBuffer.root(
                        SimMemory.allocate(device, ledger, Allocator.LEGACY, bytes, bytes, LEGACY_ALIGNMENT, Set.of()),
                        type,
                        count);
            default:
                throw CollectivesException.usage(
                        rank,
                        "Allocator." + allocator + " needs an allocator instance:"
                                + " call allocate(DeviceAllocator, type, count)");
        }
    }

    DeviceBuffer allocate(DeviceAllocator allocator, DataType type, long count, long bytes) {
        return checkedRoot(allocator, customVmm, type, count, bytes);
    }

    /** Memory from {@code allocator}, checked against R11; freed again if it fails the check. */
    private DeviceBuffer checkedRoot(
            DeviceAllocator allocator, SimVirtualMemory vmm, DataType type, long count, long bytes) {
        DeviceMemory memory = allocator.allocate(vmm, bytes);
        try {
            if (!(memory instanceof SimMemory) || ((SimMemory) memory).rank() != device) {
                throw CollectivesException.usage(
                        rank,
                        AllocatorRule.nameOf(allocator.getClass()) + " returned " + memory
                                + ", which was not mapped with this rank's virtualMemory()");
            }
            if (memory.size() < bytes) {
                throw CollectivesException.usage(
                        rank,
                        AllocatorRule.nameOf(allocator.getClass()) + " returned " + memory + " for a request of "
                                + bytes + " bytes");
            }
            AllocatorRule.check(
                    allocator.getClass(),
                    memory,
                    config.granularity(),
                    config.capabilities().fabricHandles(),
                    rank);
            return DeviceBuffer.root(memory, type, count);
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    /**
     * Any memory the simulated driver allocated (the project's own or a {@link SimForeignMemory}), classified as a
     * GPU's driver classifies an address.
     */
    DeviceBuffer wrap(long address, long bytes, DataType type) {
        ForeignMemory.Classification found = Allocation.classify(address);
        long count = ForeignMemory.check(rank, device, address, bytes, type, found);
        SimMemory memory = Allocation.wrap(device, address, found, ForeignMemory.describe(found, "{cuda,musa}Malloc"));
        return DeviceBuffer.wrapped(memory, address - found.head(), type, count);
    }
}
