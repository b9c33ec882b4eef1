package dev.collectives.tools.differential;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.Registration;
import dev.collectives.backend.sim.SimForeignMemory;
import dev.collectives.examples.Clusters;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.VirtualMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Framework memory as an item: a block of one kind, wrapped with {@code comm.wrap} at a head offset that is the same
 * on every rank or differs, passed as the external of {@link WrappedGradients} in one registration mode. The verdict
 * (runs, or the tag it fails with) is compared, and when it runs, the sums. On sim the block is sim's foreign memory
 * of that kind; on a device backend, {@code cudaMalloc}/{@code musaMalloc} memory from the library's legacy allocator,
 * or memory mapped with the driver's VMM calls with or without the POSIX fd handle type, which the driver reports as
 * a framework's.
 *
 * @param memory       the kind of memory
 * @param equalOffsets whether every rank wraps it at the same head offset
 * @param registration the pipeline's mode
 */
record WrapItem(Memory memory, boolean equalOffsets, Registration registration) implements Item {
    /** Bytes between the block's head and a rank's wrapped buffer: this, times (rank + 1) where they differ. */
    private static final long HEAD_OFFSET = 256;

    /** The kinds of framework memory. */
    enum Memory {
        LEGACY("cudaMalloc"),
        VMM_POSIX_FD("vmm-posix-fd"),
        VMM_NO_HANDLES("vmm-no-handles");

        private final String label;

        Memory(String label) {
            this.label = label;
        }

        Set<HandleType> handleTypes() {
            return this == VMM_POSIX_FD
                    ? EnumSet.of(HandleType.POSIX_FILE_DESCRIPTOR)
                    : EnumSet.noneOf(HandleType.class);
        }
    }

    /** Every kind at equal and unequal offsets in every mode. */
    static List<Item> all() {
        List<Item> items = new ArrayList<>();
        for (Memory memory : Memory.values()) {
            for (boolean equal : new boolean[] {true, false}) {
                for (Registration registration : Registration.values()) {
                    items.add(new WrapItem(memory, equal, registration));
                }
            }
        }
        return items;
    }

    @Override
    public String name() {
        return memory.label + "/" + (equalOffsets ? "equal" : "unequal") + "-offsets/"
                + registration.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public Part part() {
        return Part.WRAP;
    }

    @Override
    public Duration timeout() {
        return Clusters.MISTAKE_TIMEOUT;
    }

    @Override
    public Outcome run(RankContext rank) {
        Communicator comm = rank.comm();
        long head = equalOffsets ? HEAD_OFFSET : HEAD_OFFSET * (rank.rank() + 1);
        long bytes = 4L * WrappedGradients.COUNT;
        try (FrameworkBlock block = FrameworkBlock.open(comm, memory, head + bytes)) {
            DeviceBuffer gradients = comm.wrap(block.address() + head, bytes, DataType.FLOAT32);
            gradients.copyFromHost(HostData.values(0, rank.rank(), 0, WrappedGradients.COUNT));
            Runnable sum;
            Pipeline pipeline;
            switch (registration) {
                case NONE -> {
                    var p = CollectiveWrappedGradients_None.bind(comm, rank.stream(), gradients);
                    pipeline = p;
                    sum = p::sum;
                }
                case LOCAL -> {
                    var p = CollectiveWrappedGradients_Local.bind(comm, rank.stream(), gradients);
                    pipeline = p;
                    sum = p::sum;
                }
                default -> {
                    var p = CollectiveWrappedGradients_Graph.bind(comm, rank.stream(), gradients);
                    pipeline = p;
                    sum = p::sum;
                }
            }
            try (pipeline) {
                sum.run();
                rank.stream().synchronize();
                return Outcome.ran(List.of(Output.ofFloats("gradients", HostData.read(gradients))));
            }
        }
    }

    /**
     * The framework's block, freed at close, after the pipeline that wrapped it.
     *
     * @param address its head
     * @param free    the framework's free
     */
    private record FrameworkBlock(long address, Runnable free) implements AutoCloseable {
        static FrameworkBlock open(Communicator comm, Memory memory, long bytes) {
            long granularity = comm.virtualMemory().granularity(memory.handleTypes());
            if ("sim".equals(comm.backendName())) {
                SimForeignMemory block = memory == Memory.LEGACY
                        ? SimForeignMemory.deviceMalloc(comm.rank(), bytes)
                        : SimForeignMemory.vmm(
                                comm.rank(),
                                bytes,
                                granularity,
                                memory.handleTypes().toArray(HandleType[]::new));
                return new FrameworkBlock(block.address(), block::close);
            }
            if (memory == Memory.LEGACY) {
                DeviceBuffer block = comm.allocate(Allocator.LEGACY, DataType.UINT8, bytes);
                return new FrameworkBlock(block.address(), block::close);
            }
            long size = VirtualMemory.roundUp(bytes, granularity);
            DeviceMemory block = comm.virtualMemory().map(size, size, granularity, memory.handleTypes());
            return new FrameworkBlock(block.address(), block::close);
        }

        @Override
        public void close() {
            free.run();
        }
    }
}
