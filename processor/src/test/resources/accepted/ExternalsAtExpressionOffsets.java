package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

/**
 * Ops between two externals (which may be parts of one tensor) whose offsets and counts are expressions: over a dim
 * and ranks, checked apart at bind, and over the step's parameters, checked at each call.
 */
@CollectivePipeline(registration = Registration.GRAPH)
interface ExternalsAtExpressionOffsets {
    @Dim long n();
    @External(type = DataType.FLOAT32, countExpr = "2 * n + 8 * ranks") DeviceBuffer in();
    @External(type = DataType.FLOAT32, countExpr = "n * ranks + 8") DeviceBuffer out();
    @AllToAll(send = "in", sendOffsetExpr = "n + 8 * ranks", recv = "out", recvOffset = 8, countExpr = "n")
    void exchange();
    @AllReduce(send = "in", sendOffsetExpr = "off", recv = "out", recvOffsetExpr = "off + 8", countExpr = "count")
    void sum(long off, long count);
}
