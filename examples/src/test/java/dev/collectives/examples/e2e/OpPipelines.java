package dev.collectives.examples.e2e;

import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.AllToAll;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.Broadcast;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.Gather;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.QualifiedAllocator;
import dev.collectives.annotation.Recv;
import dev.collectives.annotation.Reduce;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Scatter;
import dev.collectives.annotation.Send;
import dev.collectives.annotation.View;
import dev.collectives.annotation.Window;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.QualifiedVmmAllocator;
import dev.collectives.runtime.VirtualMemory;

/**
 * Every op type, one step each, as a LOCAL and as a GRAPH pipeline (same declarations: the numbers must not depend
 * on the registration mode), plus pipelines for the bind-time rules.
 */
final class OpPipelines {
    /** Elements of {@code input} and {@code output}: enough for every op at up to 4 ranks. */
    static final int ELEMENTS = 32;

    private OpPipelines() {}

    @CollectivePipeline(registration = Registration.LOCAL)
    interface Local {
        @Buffer(type = DataType.FLOAT32, count = ELEMENTS)
        DeviceBuffer input();

        @Buffer(type = DataType.FLOAT32, count = ELEMENTS)
        DeviceBuffer output();

        @AllReduce(send = "input", recv = "output", count = 8, op = ReduceOp.SUM)
        void allReduce();

        @AllGather(send = "input", recv = "output", sendCount = 4)
        void allGather();

        @ReduceScatter(send = "input", recv = "output", recvCount = 4, op = ReduceOp.MAX)
        void reduceScatter();

        @Broadcast(send = "input", recv = "output", count = 8, root = 1)
        void broadcast();

        @Reduce(send = "input", recv = "output", count = 8, op = ReduceOp.MIN, root = 0)
        void reduce();

        @AllToAll(send = "input", recv = "output", count = 2)
        void allToAll();

        @Gather(send = "input", recv = "output", sendCount = 4, root = 1)
        void gather();

        @Scatter(send = "input", recv = "output", recvCount = 2, root = 1)
        void scatter();

        @Send(buffer = "input", count = 8, peer = Peer.NEXT)
        @Recv(buffer = "output", count = 8, peer = Peer.PREVIOUS)
        void ring();
    }

    @CollectivePipeline(registration = Registration.GRAPH)
    interface Graph {
        @Buffer(type = DataType.FLOAT32, count = ELEMENTS)
        DeviceBuffer input();

        @Buffer(type = DataType.FLOAT32, count = ELEMENTS)
        DeviceBuffer output();

        @AllReduce(send = "input", recv = "output", count = 8, op = ReduceOp.SUM)
        void allReduce();

        @AllGather(send = "input", recv = "output", sendCount = 4)
        void allGather();

        @ReduceScatter(send = "input", recv = "output", recvCount = 4, op = ReduceOp.MAX)
        void reduceScatter();

        @Broadcast(send = "input", recv = "output", count = 8, root = 1)
        void broadcast();

        @Reduce(send = "input", recv = "output", count = 8, op = ReduceOp.MIN, root = 0)
        void reduce();

        @AllToAll(send = "input", recv = "output", count = 2)
        void allToAll();

        @Gather(send = "input", recv = "output", sendCount = 4, root = 1)
        void gather();

        @Scatter(send = "input", recv = "output", recvCount = 2, root = 1)
        void scatter();

        @Send(buffer = "input", count = 8, peer = Peer.NEXT)
        @Recv(buffer = "output", count = 8, peer = Peer.PREVIOUS)
        void ring();
    }

    /** NONE: no registration; an in-place average on a view pair of one block, and a window. */
    @CollectivePipeline(registration = Registration.NONE)
    interface Unregistered {
        @Buffer(type = DataType.FLOAT32, count = ELEMENTS)
        DeviceBuffer data();

        @View(of = "data", offsetBytes = 0, type = DataType.FLOAT32, count = 8)
        DeviceBuffer head();

        @Window
        @Buffer(type = DataType.FLOAT32, count = 1024)
        DeviceBuffer shared();

        @AllReduce(send = "head", recv = "head", count = 8, op = ReduceOp.AVG)
        void average();
    }

    /**
     * An external buffer, registered locally: its head offset must be the same on every rank where MTLink SHARP
     * registers it (R2), and may differ where general registration does.
     */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface WithExternal {
        @External(type = DataType.FLOAT32, count = 8)
        DeviceBuffer given();

        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer result();

        @AllReduce(send = "given", recv = "result", count = 8)
        void sum();
    }

    /** Without registration, rank 0 broadcasts into an external that ranks may pass at any head offset (R2). */
    @CollectivePipeline(registration = Registration.NONE)
    interface BroadcastIntoExternal {
        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer source();

        @External(type = DataType.FLOAT32, count = 8)
        DeviceBuffer target();

        @Broadcast(send = "source", recv = "target", count = 8, root = 0)
        void share();
    }

    /** IB SHARP registration: 1 rank per node at bind (R8). */
    @CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.IB_SHARP)
    interface IbSharp {
        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer a();

        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer b();

        @AllReduce(send = "a", recv = "b", count = 8)
        void sum();
    }

    /** Legacy memory registered for IB SHARP, which takes any allocator: no opt-in, and no variable (R8, R9). */
    @CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.IB_SHARP)
    interface IbSharpLegacy {
        @Buffer(type = DataType.FLOAT32, count = 8, allocator = Allocator.LEGACY)
        DeviceBuffer a();

        @Buffer(type = DataType.FLOAT32, count = 8, allocator = Allocator.LEGACY)
        DeviceBuffer b();

        @AllReduce(send = "a", recv = "b", count = 8)
        void sum();
    }

    /** MTLink SHARP: VMM, custom qualified and external memory (R3 at bind for the external, R11 per allocation). */
    @CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.MTLINK_SHARP)
    interface MtlinkSharp {
        @Buffer(type = DataType.FLOAT32, count = 8, allocator = Allocator.VMM)
        DeviceBuffer a();

        @Buffer(type = DataType.FLOAT32, count = 8, allocator = Allocator.CUSTOM, customAllocator = Pool.class)
        DeviceBuffer b();

        @External(type = DataType.FLOAT32, count = 8)
        DeviceBuffer c();

        @AllReduce(send = "a", recv = "b", count = 8)
        @AllReduce(send = "b", recv = "c", count = 8, op = ReduceOp.MAX)
        void step();

        /** A qualified allocator of the user's own: the project's VMM allocator behind it. */
        @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
        final class Pool implements DeviceAllocator {
            @Override
            public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
                return new QualifiedVmmAllocator().allocate(vmm, bytes);
            }
        }
    }

    /** Registered legacy memory: opted in at compile time, needs the variable at bind (R9). */
    @CollectivePipeline(registration = Registration.LOCAL, allowLegacyRegistration = true)
    interface Legacy {
        @Buffer(type = DataType.FLOAT32, count = 8, allocator = Allocator.LEGACY)
        DeviceBuffer a();

        @Buffer(type = DataType.FLOAT32, count = 8, allocator = Allocator.LEGACY)
        DeviceBuffer b();

        @AllReduce(send = "a", recv = "b", count = 8)
        void sum();
    }

    /** An allgather into the block it sends from: apart up to 4 ranks, overlapping beyond (R7 at bind). */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface GatherInBlock {
        @Buffer(type = DataType.FLOAT32, count = 64)
        DeviceBuffer block();

        @AllGather(send = "block", sendOffset = 32, recv = "block", sendCount = 8)
        void gather();
    }

    /** Two externals, which bind may be given as one tensor (R7 at bind). */
    @CollectivePipeline(registration = Registration.NONE)
    interface TwoExternals {
        @External(type = DataType.FLOAT32, count = 8)
        DeviceBuffer in();

        @External(type = DataType.FLOAT32, count = 8)
        DeviceBuffer out();

        @AllReduce(send = "in", recv = "out", count = 8)
        void sum();
    }
}
