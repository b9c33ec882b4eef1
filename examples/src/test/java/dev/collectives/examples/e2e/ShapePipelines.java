package dev.collectives.examples.e2e;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.Capture;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/** Pipelines sized at bind and at call (nested: the generated classes are CollectiveShapePipelines_Local etc.). */
final class ShapePipelines {
    /** The bucket {@link Graph} captures at bind. */
    static final long CAPTURED_N = 4;

    private ShapePipelines() {}

    /** An arena sized at bind, a bucket of it allreduced in place per call, and the whole of it gathered. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface Local {
        @Dim
        long elements();

        @Buffer(type = DataType.FLOAT32, countExpr = "elements")
        DeviceBuffer grads();

        @Buffer(type = DataType.FLOAT32, countExpr = "elements * ranks")
        DeviceBuffer gathered();

        @AllReduce(
                send = "grads",
                sendOffsetExpr = "offset",
                recv = "grads",
                recvOffsetExpr = "offset",
                countExpr = "n",
                op = ReduceOp.SUM)
        void bucket(long offset, long n);

        @AllGather(send = "grads", recv = "gathered", sendCountExpr = "elements")
        void gather();
    }

    /** The bucket as a GRAPH step: one graph per (offset, n), at most 2 held, (0, 4) captured at bind. */
    @CollectivePipeline(registration = Registration.GRAPH, graphCache = 2)
    interface Graph {
        @Dim
        long elements();

        @Buffer(type = DataType.FLOAT32, countExpr = "elements")
        DeviceBuffer send();

        @Buffer(type = DataType.FLOAT32, countExpr = "elements")
        DeviceBuffer recv();

        @AllReduce(
                send = "send",
                sendOffsetExpr = "offset",
                recv = "recv",
                recvOffsetExpr = "offset",
                countExpr = "n",
                op = ReduceOp.SUM)
        @Capture(param = "offset", values = 0)
        @Capture(param = "n", values = CAPTURED_N)
        void bucket(long offset, long n);
    }

    /** The bucket as a GRAPH step whose cache of 2 graphs must hold every tuple it is called with. */
    @CollectivePipeline(registration = Registration.GRAPH, graphCache = 2, graphCacheOverflow = GraphCacheOverflow.FAIL)
    interface StrictGraph {
        @Buffer(type = DataType.FLOAT32, count = 64)
        DeviceBuffer grads();

        @AllReduce(
                send = "grads",
                sendOffsetExpr = "offset",
                recv = "grads",
                recvOffsetExpr = "offset",
                countExpr = "n",
                op = ReduceOp.SUM)
        void bucket(long offset, long n);
    }
}
