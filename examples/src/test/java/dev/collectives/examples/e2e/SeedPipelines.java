package dev.collectives.examples.e2e;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.View;
import dev.collectives.runtime.DeviceBuffer;

/** The seed's three examples, as pipelines (nested: the generated classes are CollectiveSeedPipelines_Graph etc.). */
final class SeedPipelines {
    private SeedPipelines() {}

    /** Seed example 1: graph registration, two allreduces, the second at offsets 1024 and 2048. */
    @CollectivePipeline(registration = Registration.GRAPH)
    interface Graph {
        @Buffer(type = DataType.FLOAT32, count = 1 << 25)
        DeviceBuffer sendbuff();

        @Buffer(type = DataType.FLOAT32, count = 1 << 25)
        DeviceBuffer recvbuff();

        @AllReduce(send = "sendbuff", recv = "recvbuff", count = 1024, op = ReduceOp.SUM)
        @AllReduce(
                send = "sendbuff",
                sendOffset = 1024,
                recv = "recvbuff",
                recvOffset = 2048,
                count = 1024,
                op = ReduceOp.SUM)
        void step();
    }

    /** Seed example 2: local registration, the same two allreduces. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface Local {
        @Buffer(type = DataType.FLOAT32, count = 1 << 25)
        DeviceBuffer sendbuff();

        @Buffer(type = DataType.FLOAT32, count = 1 << 25)
        DeviceBuffer recvbuff();

        @AllReduce(send = "sendbuff", recv = "recvbuff", count = 1024, op = ReduceOp.SUM)
        @AllReduce(
                send = "sendbuff",
                sendOffset = 1024,
                recv = "recvbuff",
                recvOffset = 2048,
                count = 1024,
                op = ReduceOp.SUM)
        void step();
    }

    /** Seed example 3: one big block registered once, send and recv carved from it. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface Arena {
        @Buffer(count = 1 << 29)
        DeviceBuffer buffer();

        @View(of = "buffer", offsetBytes = 0, type = DataType.FLOAT32, count = 1024)
        DeviceBuffer sendbuff();

        @View(of = "buffer", offsetBytes = 1 << 20, type = DataType.FLOAT32, count = 1024)
        DeviceBuffer recvbuff();

        @AllReduce(send = "sendbuff", recv = "recvbuff", count = 1024, op = ReduceOp.SUM)
        void step();
    }
}
