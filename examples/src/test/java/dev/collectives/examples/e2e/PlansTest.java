package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.ramp;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.WrittenOrder;
import dev.collectives.runtime.DeviceBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Steps as the processor plans them, on sim: what {@code describe()} says of each plan, where bind decides it with
 * the dims it got, and the sums every rank reads, which are those of the ops one by one.
 */
class PlansTest {
    private static final int RANKS = 3;
    private static final long N = 8;

    /** Buckets of an arena allreduced in place: the third lies after the second only where {@code m = 2 * n}. */
    @CollectivePipeline(registration = Registration.GRAPH)
    interface Buckets {
        @Dim
        long n();

        @Dim
        long m();

        @Buffer(type = DataType.FLOAT32, countExpr = "4 * n + m")
        DeviceBuffer grads();

        @AllReduce(send = "grads", recv = "grads", countExpr = "n")
        @AllReduce(send = "grads", sendOffsetExpr = "n", recv = "grads", recvOffsetExpr = "n", countExpr = "n")
        @AllReduce(send = "grads", sendOffsetExpr = "m", recv = "grads", recvOffsetExpr = "m", countExpr = "n")
        void reduce();

        @WrittenOrder
        @AllReduce(send = "grads", recv = "grads", countExpr = "n")
        @AllReduce(send = "grads", sendOffsetExpr = "n", recv = "grads", recvOffsetExpr = "n", countExpr = "n")
        void asWritten();
    }

    @ParameterizedTest(name = "m = {0} x n")
    @ValueSource(longs = {2, 3})
    void bindFusesWhereTheDimsItGotPutTheRangesEndToEnd(long multiple) {
        long m = multiple * N;
        Ranks.run(RANKS, rank -> {
            try (CollectivePlansTest_Buckets p = CollectivePlansTest_Buckets.binder(rank.comm(), rank.stream())
                    .n(N)
                    .m(m)
                    .bind()) {
                int count = (int) p.grads().count();
                p.grads().copyFromHost(ramp(rank.rank(), count));
                p.reduce();
                rank.stream().synchronize();
                float[] expected = ramp(0, count);
                for (int i = 0; i < count; i++) {
                    boolean reduced = i < 2 * N || i >= m && i < m + N;
                    expected[i] = reduced ? RANKS * i + 100f * (RANKS * (RANKS - 1) / 2) : 100f * rank.rank() + i;
                }
                Ranks.assertFloats(expected, p.grads(), "rank " + rank.rank());
                String described = p.describe();
                assertTrue(
                        described.contains(
                                multiple == 2
                                        ? "plan of reduce(): fused 3 allreduces into one (#1-#3): send and recv ranges adjacent with "
                                                + "the dims bound, in place\n"
                                        : "plan of reduce(): fused 2 allreduces into one (#1-#2): send and recv ranges adjacent, in "
                                                + "place; #3 not fused with #2: they fuse only for some values of the dims, and bind "
                                                + "found that the dims bound do not fuse every such run of this step\n"),
                        described);
                assertTrue(
                        described.contains("plan of asWritten(): the ops one by one, as written (@WrittenOrder)"),
                        described);
            }
        });
    }
}
