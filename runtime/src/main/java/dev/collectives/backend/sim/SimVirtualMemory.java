package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.HandleType;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.VirtualMemory;
import java.util.Set;

/**
 * The sim's {@code muMem*} API: "physical" memory and its reservation come from one host block whose head is
 * aligned as asked. Sizes are taken as given (not rounded), so that R11 can be checked on what an allocator asked.
 */
final class SimVirtualMemory implements VirtualMemory {
    private final int rank;
    private final Ledger ledger;
    private final SimConfig config;
    private final Allocator kind;

    /** @param kind how the memory it maps is labelled: VMM for the project's allocator, CUSTOM otherwise */
    SimVirtualMemory(int rank, Ledger ledger, SimConfig config, Allocator kind) {
        this.rank = rank;
        this.ledger = ledger;
        this.config = config;
        this.kind = kind;
    }

    @Override
    public long granularity(Set<HandleType> handleTypes) {
        handleTypes.forEach(this::requireSupported);
        return config.granularity();
    }

    @Override
    public boolean supports(HandleType handleType) {
        return handleType != HandleType.FABRIC || config.capabilities().fabricHandles();
    }

    @Override
    public DeviceMemory map(long physicalSize, long reservedSize, long alignment, Set<HandleType> handleTypes) {
        handleTypes.forEach(this::requireSupported);
        if (physicalSize <= 0 || reservedSize < physicalSize || alignment <= 0) {
            throw CollectivesException.library(
                    Result.INVALID_ARGUMENT,
                    rank,
                    "muMemCreate/muMemAddressReserve",
                    "physical size " + physicalSize + ", reserved size " + reservedSize + ", alignment " + alignment
                            + ": need 0 < physical <= reserved and a positive alignment");
        }
        return SimMemory.allocate(rank, ledger, kind, physicalSize, reservedSize, alignment, handleTypes);
    }

    private void requireSupported(HandleType handleType) {
        if (!supports(handleType)) {
            throw CollectivesException.library(
                    Result.INVALID_ARGUMENT,
                    rank,
                    "muMemCreate",
                    "this device does not support the " + handleType + " handle type");
        }
    }
}
