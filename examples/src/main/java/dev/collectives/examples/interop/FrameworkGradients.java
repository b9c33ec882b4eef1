package dev.collectives.examples.interop;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * Gradients that a framework keeps in its own memory, summed in place across ranks on the framework's stream.
 * The memory is {@code cudaMalloc} memory (legacy, R9), so the pipeline does not register it: registering it would
 * need {@code allowLegacyRegistration} and the legacy-registration variable.
 */
@CollectivePipeline(registration = Registration.NONE)
public interface FrameworkGradients {
    int COUNT = 1 << 16;

    @External(type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer gradients();

    @AllReduce(send = "gradients", recv = "gradients", count = COUNT, op = ReduceOp.SUM)
    void sum();
}
