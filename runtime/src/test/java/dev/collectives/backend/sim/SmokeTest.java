package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

class SmokeTest {
    @Test
    void allReduceTwoRanks() {
        try (LocalCluster cluster = Backends.get("sim").local(2)) {
            cluster.run(ctx -> {
                try (DeviceBuffer send = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 5);
                     DeviceBuffer recv = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 5)) {
                    float[] x = new float[5];
                    for (int i = 0; i < 5; i++) {
                        x[i] = i + 10 * ctx.rank();
                    }
                    send.copyFromHost(x);
                    ctx.comm().allReduce(send, recv, 5, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                    ctx.stream().synchronize();
                    float[] y = new float[5];
                    recv.copyToHost(y);
                    assertArrayEquals(new float[] {10, 12, 14, 16, 18}, y);
                }
            });
        }
    }
}
