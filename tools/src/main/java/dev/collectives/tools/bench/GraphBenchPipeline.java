package dev.collectives.tools.bench;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/** The benchmark's pipeline in GRAPH registration; {@link PipelineBenchmark} times its steps. */
@CollectivePipeline(registration = Registration.GRAPH, ranks = PipelineBenchmark.RANKS)
public interface GraphBenchPipeline {
    @Buffer(type = DataType.FLOAT32, count = PipelineBenchmark.SEND_COUNT)
    DeviceBuffer send();

    @Buffer(type = DataType.FLOAT32, count = PipelineBenchmark.RECV_COUNT)
    DeviceBuffer recv();

    @AllReduce(send = "send", recv = "recv", count = PipelineBenchmark.SMALL_COUNT)
    void allReduceSmall();

    @AllReduce(send = "send", recv = "recv", count = PipelineBenchmark.LARGE_COUNT)
    void allReduceLarge();

    @AllGather(send = "send", recv = "recv", sendCount = PipelineBenchmark.SEND_COUNT)
    void allGather();
}
