package dev.collectives.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** Who a rank that waited in vain names: exactly the ranks that never entered the gather, whenever the others came. */
class ArrivalsTest {
    private static final int SIZE = 4;

    @Test
    void aRankWhoseTaskEndedAfterItCameIsNotNamed() {
        Arrivals stage = Arrivals.of("arrivals-test-1", true);
        stage.arrive(0);
        stage.arrive(3);
        stage.leave(SIZE); // rank 0's wait timed out first and its task ended
        int number = stage.arrive(2);

        assertEquals("rank 1 did not take part", stage.late(number, SIZE));
    }

    @Test
    void aTaskThatStartsAfterTheOthersEndedFindsTheirArrivals() {
        Arrivals first = Arrivals.of("arrivals-test-2", true);
        first.arrive(0);
        first.arrive(3);
        first.leave(SIZE);
        first.leave(SIZE);
        Arrivals late = Arrivals.of("arrivals-test-2", true);
        int number = late.arrive(2);

        assertSame(first, late);
        assertEquals("rank 1 did not take part", late.late(number, SIZE));
    }

    @Test
    void aLaterGatherNamesTheRanksThatHaveNotEnteredItYet() {
        Arrivals stage = Arrivals.of("arrivals-test-3", true);
        for (int rank = 0; rank < SIZE; rank++) {
            stage.arrive(rank);
        }
        stage.arrive(1);
        int number = stage.arrive(2);

        assertEquals("ranks 0, 3 did not take part", stage.late(number, SIZE));
    }

    @Test
    void theRecordGoesOnceEveryTaskEnded() {
        Arrivals stage = Arrivals.of("arrivals-test-4", true);
        for (int rank = 0; rank < SIZE; rank++) {
            stage.arrive(rank);
            stage.leave(SIZE);
        }

        assertNotSame(stage, Arrivals.of("arrivals-test-4", true));
    }

    @Test
    void onAClusterOnlyThisExecutorsRanksAreNamedAsHavingCome() {
        Arrivals stage = Arrivals.of("arrivals-test-5", false);
        stage.arrive(2);
        int number = stage.arrive(3);

        assertEquals("not every rank took part (of this executor's tasks, ranks 2, 3 did)", stage.late(number, SIZE));
    }
}
