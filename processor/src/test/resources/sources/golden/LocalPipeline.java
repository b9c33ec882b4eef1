package golden;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.Grouped;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.QualifiedAllocator;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.View;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.QualifiedVmmAllocator;
import dev.collectives.runtime.VirtualMemory;

/** Seed example 3 (one block registered once, views carved from it), an external input and a custom allocator. */
@CollectivePipeline(registration = Registration.LOCAL)
public interface LocalPipeline {
    @Buffer(count = 1 << 29)
    DeviceBuffer buffer();

    @View(of = "buffer", offsetBytes = 0, type = DataType.FLOAT32, count = 1024)
    DeviceBuffer sendbuff();

    @View(of = "buffer", offsetBytes = 1 << 20, type = DataType.FLOAT32, count = 1024)
    DeviceBuffer recvbuff();

    @External(type = DataType.BFLOAT16, count = 4096)
    DeviceBuffer gradients();

    @Buffer(type = DataType.BFLOAT16, count = 4096, allocator = Allocator.CUSTOM, customAllocator = Pool.class)
    DeviceBuffer shards();

    @AllReduce(send = "sendbuff", recv = "recvbuff", count = 1024, op = ReduceOp.SUM)
    void step();

    @Grouped
    @ReduceScatter(send = "gradients", recv = "shards", recvCount = 1024, op = ReduceOp.AVG)
    @AllReduce(send = "sendbuff", sendOffset = 512, recv = "recvbuff", recvOffset = 512, count = 512,
            op = ReduceOp.MAX)
    void scatter();

    /** A qualified allocator: the project's VMM allocator under another name. */
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class Pool implements DeviceAllocator {
        @Override
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
            return new QualifiedVmmAllocator().allocate(vmm, bytes);
        }
    }
}
