package dev.collectives.runtime.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What a job's failure, as the rendezvous tells it, means for each communicator of the job: whether it concerns the
 * communicator, and how the communicator names the ranks at fault.
 */
class JobRanksTest {
    private static final String GONE = "rank 3 at /127.0.0.1:41003 is gone: its connection ended while the job ran";
    private static final int[] THREE = {3};
    private static final int[] ONE_AND_THREE = {1, 3};
    private static final int[] NONE = {};
    private static final String VERDICT = "ranks [1, 3] did not arrive at the collective that ranks [0, 2] waited in "
            + "(each waited 5 s for stream synchronize): they never called it, or are stuck before it";

    private final JobRanks job = JobRanks.ofJob(4);
    /** The odd ranks, rank 3 first: split with color 1 and key -rank. */
    private final JobRanks odd = job.child(new int[] {3, 1}, "split with color 1");

    @Test
    void theJobsCommunicatorShowsTheFailureAsTheJobToldIt() {
        assertEquals(GONE, job.named(THREE, GONE));
        assertEquals(
                GONE, job.child(new int[] {0, 1, 2, 3}, "split with color 0").named(THREE, GONE));
    }

    @Test
    void aChildNamesTheRankOfTheJobAndItsOwn() {
        assertEquals(
                "rank 3 of the job (rank 0 of this communicator, split with color 1) at /127.0.0.1:41003 is gone: "
                        + "its connection ended while the job ran",
                odd.named(THREE, GONE));
        assertEquals(
                "ranks [1, 3] of the job (ranks [1, 0] of this communicator, split with color 1) did not arrive at the"
                        + " collective that ranks [0, 2] waited in (each waited 5 s for stream synchronize): they "
                        + "never called it, or are stuck before it",
                odd.named(ONE_AND_THREE, VERDICT));
    }

    @Test
    void aFailureConcernsTheCommunicatorsThatHoldARankAtFaultOrNamesNone() {
        JobRanks even = job.child(new int[] {0, 2}, "split with color 0");
        assertTrue(odd.concerns(THREE));
        assertFalse(even.concerns(THREE));
        assertTrue(odd.concerns(ONE_AND_THREE));
        assertFalse(even.concerns(new int[] {1}));
        assertTrue(even.concerns(new int[] {0}));
        assertTrue(even.concerns(NONE), "a failure that blames no rank concerns every communicator");
        String differentCalls = "every rank timed out waiting in the library (rank 0: waited 1 s for stream "
                + "synchronize; rank 1: waited 2 s for stream synchronize): the ranks called different collectives";
        assertEquals(differentCalls, even.named(NONE, differentCalls));
    }

    @Test
    void aChildOfAChildMapsToTheJobsRanks() {
        JobRanks survivors = job.child(JobRanks.without(4, new int[] {1}), "shrunk without rank 1");
        JobRanks again = survivors.child(JobRanks.without(3, new int[] {2}), "shrunk without rank 2");
        assertEquals("ranks [0, 2] of the job, shrunk without rank 2", again.toString());
        assertEquals(1, again.rankOf(2));
        assertEquals(-1, again.rankOf(3));
        assertEquals(
                "rank 3 of the job (not in this communicator, shrunk without rank 2) at /127.0.0.1:41003 is gone: its "
                        + "connection ended while the job ran",
                again.named(THREE, GONE));
    }

    @Test
    void aCommunicatorGrownAfterADeathNamesTheJobsRankAndItsOwnAndASplitsChildDoesNotGrow() {
        JobRanks grown = JobRanks.grown(new int[] {0, 1, 3, 4}, 5);
        assertEquals("ranks [0, 1, 3, 4] of the job, grown without the job's rank 2", grown.toString());
        assertEquals(
                "rank 4 of the job (rank 3 of this communicator, grown without the job's rank 2) at /127.0.0.1:41004"
                        + " is gone: its connection ended while the job ran",
                grown.named(
                        new int[] {4}, "rank 4 at /127.0.0.1:41004 is gone: its connection ended while the job ran"));
        assertTrue(JobRanks.grown(new int[] {0, 1, 2}, 3).numberedAsTheJob(), "none died: numbered as the job");
        JobRanks shrunk = grown.child(JobRanks.without(4, new int[] {3}), "shrunk without rank 3");
        assertFalse(shrunk.madeBySplit());
        assertTrue(job.split(new int[] {0, 1, 2, 3}, 0).madeBySplit(), "even a split that holds every rank");
        assertTrue(job.split(new int[] {0, 2}, 0)
                .child(new int[] {0}, "shrunk without rank 1")
                .madeBySplit());
    }

    /**
     * Whom a failure blames is what it carries, whatever its words begin with: rank 0's process relays rank 2's end
     * of the job, and a child without rank 0 but with rank 2 is concerned, with the numbering after the words.
     */
    @Test
    void theRanksAtFaultAreTheFailuresDataNotItsWords() {
        JobRanks withoutRankZero = job.split(new int[] {1, 2, 3}, 1);
        String relayed = "rank 0 ended the job: rank 2 at /127.0.0.1:41002 ended the job: out of memory";
        assertTrue(withoutRankZero.concerns(new int[] {2}));
        assertEquals(
                relayed + " (rank 2 of the job (rank 1 of this communicator, split with color 1))",
                withoutRankZero.named(new int[] {2}, relayed));
        assertEquals(
                "rank 12 at /127.0.0.1:41012 is gone (rank 1 of the job (rank 0 of this communicator, split with color"
                        + " 1))",
                withoutRankZero.named(new int[] {1}, "rank 12 at /127.0.0.1:41012 is gone"));
    }
}
