package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

/** Ranges whose overlap only bind can tell: ranks not declared, two externals that may be one tensor. */
@CollectivePipeline(registration = Registration.LOCAL)
interface RanksDependentRanges {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer block();
    @External(type = DataType.FLOAT32, count = 8) DeviceBuffer in();
    @External(type = DataType.FLOAT32, count = 8) DeviceBuffer out();
    @AllGather(send = "block", sendOffset = 32, recv = "block", sendCount = 8) void gather();
    @AllReduce(send = "in", recv = "out", count = 8) void sum();
    /** The allgather's recv reaches 4 x ranks; the receive's offset is the call's: apart at bind and at the call. */
    @Grouped
    @AllGather(send = "in", recv = "block", sendCount = 4)
    @Recv(buffer = "block", offsetExpr = "at", count = 4, peer = Peer.PREVIOUS)
    @Send(buffer = "in", count = 4, peer = Peer.NEXT)
    void gatherAndPass(long at);
    /** Counts known only at the call: bind pairs the peers and compares the types. */
    @Send(buffer = "block", countExpr = "n", peer = Peer.NEXT)
    @Recv(buffer = "out", countExpr = "n", peer = Peer.PREVIOUS)
    void pass(long n);
}
