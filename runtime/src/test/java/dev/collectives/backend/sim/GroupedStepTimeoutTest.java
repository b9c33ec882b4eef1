package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A grouped step waits for the other ranks one timeout in all, however many ops it groups, as its message says. */
@Timeout(60)
class GroupedStepTimeoutTest {
    @Test
    void theOpsOfAGroupedStepThatAnotherRankNeverCallsWaitToOneDeadline() {
        List<Long> deadlines = new CopyOnWriteArrayList<>();
        String[] failure = new String[1];
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).timeout(PerRank.SHORT).build()) {
            cluster.run(ctx -> {
                if (ctx.rank() == 1) {
                    return; // never calls the step
                }
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                ((SimCommunicator) comm).group().waits = (rank, deadline) -> deadlines.add(deadline);
                try (DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 8);
                        DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 8)) {
                    comm.groupStart();
                    comm.allReduce(a, b, 8, DataType.FLOAT32, ReduceOp.SUM, stream);
                    comm.allReduce(b, a, 8, DataType.FLOAT32, ReduceOp.SUM, stream);
                    comm.groupEnd();
                    failure[0] = assertThrows(CollectivesException.class, stream::synchronize)
                            .getMessage();
                }
            });
        }
        assertContains(failure[0], "ranks [1] did not arrive within 300 ms");
        assertEquals(2, deadlines.size(), "one wait per op of the step: " + deadlines);
        assertEquals(deadlines.get(0), deadlines.get(1), "the step's two ops waited to different deadlines");
    }
}
