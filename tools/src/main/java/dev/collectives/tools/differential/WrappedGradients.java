package dev.collectives.tools.differential;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * Gradients in memory a framework owns, wrapped with {@code comm.wrap} and summed in place, once per registration
 * mode: what {@link WrapItem} binds on every kind of framework memory.
 */
final class WrappedGradients {
    static final int COUNT = 4096;

    private WrappedGradients() {}

    @CollectivePipeline(registration = Registration.NONE)
    interface None {
        @External(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer gradients();

        @AllReduce(send = "gradients", recv = "gradients", count = COUNT)
        void sum();
    }

    @CollectivePipeline(registration = Registration.LOCAL)
    interface Local {
        @External(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer gradients();

        @AllReduce(send = "gradients", recv = "gradients", count = COUNT)
        void sum();
    }

    @CollectivePipeline(registration = Registration.GRAPH)
    interface Graph {
        @External(type = DataType.FLOAT32, count = COUNT)
        DeviceBuffer gradients();

        @AllReduce(send = "gradients", recv = "gradients", count = COUNT)
        void sum();
    }
}
