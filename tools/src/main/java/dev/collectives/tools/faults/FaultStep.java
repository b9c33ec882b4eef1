package dev.collectives.tools.faults;

import dev.collectives.annotation.Registration;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;
import java.util.function.LongConsumer;

/**
 * The fault pipeline of one registration mode, bound: its buffers and its step, alike whatever the mode.
 *
 * @param pipeline the bound pipeline, which {@link #close()} closes
 * @param send     the buffer the step reduces from
 * @param recv     the buffer it reduces into
 * @param step     the step, given the element count at each call
 */
record FaultStep(Pipeline pipeline, DeviceBuffer send, DeviceBuffer recv, LongConsumer step) implements AutoCloseable {
    /** Elements of each buffer: room for a step one element larger than the others' ({@link Fault#SHAPES}). */
    static final int CAPACITY = 1024;

    /** Binds the pipeline of {@code mode} on {@code comm}, its ops on {@code stream}; collective. */
    static FaultStep bind(Registration mode, Communicator comm, Stream stream) {
        return switch (mode) {
            case NONE -> {
                var p = CollectiveNoneFaultPipeline.bind(comm, stream);
                yield new FaultStep(p, p.send(), p.recv(), p::step);
            }
            case LOCAL -> {
                var p = CollectiveLocalFaultPipeline.bind(comm, stream);
                yield new FaultStep(p, p.send(), p.recv(), p::step);
            }
            case GRAPH -> {
                var p = CollectiveGraphFaultPipeline.bind(comm, stream);
                yield new FaultStep(p, p.send(), p.recv(), p::step);
            }
        };
    }

    @Override
    public void close() {
        pipeline.close();
    }
}
