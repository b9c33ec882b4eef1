package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.LogCapture;
import dev.collectives.runtime.RecoveryEvents;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Lineage;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A job of processes grown on the device backend, on a scripted native library ({@link ScriptedNativeApi}) and a
 * scripted job: its ranks stop watching, take in the processes that join through the job's rendezvous, and form a
 * communicator of the larger size from rank 0's new unique id, which takes the job over; a growth that fails leaves
 * the communicator at its size, watched again.
 */
class DeviceGrowTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ScriptedNativeApi api = new ScriptedNativeApi();

    @AfterEach
    void nothingWasFreedTwiceOrUsedAfterItWasFreed() {
        assertEquals(List.of(), api.misuse());
    }

    @Test
    void theRanksGrowTheJobIntoACommunicatorOfTheLargerSizeWhichTakesTheJobOver() {
        api.lacking("CommGrow");
        GrowingJob job = new GrowingJob(1, 2, false);
        DeviceCommunicator comm = job.joinedBy(api);

        Communicator[] grown = new Communicator[1];
        List<LogRecord> records =
                LogCapture.capture("dev.collectives.recovery", Level.ALL, () -> grown[0] = comm.grow(2, WAIT));

        assertEquals(1, grown[0].rank());
        assertEquals(4, grown[0].size());
        assertEquals(4, api.lastInit().size());
        assertEquals(1, api.lastInit().rank());
        assertEquals(
                List.of(
                        "watch",
                        "unwatch",
                        "grow by 2 within 30 s",
                        "allgather of survivors",
                        "allgather",
                        "broadcast",
                        "allgather",
                        "watch"),
                job.operations,
                "stopped watching, grew, met the live ranks, agreed on the backend, shared the id, counted ranks per node, watched again");
        assertEquals(1, records.size(), records.toString());
        assertEquals(
                "grow: nccl rank 1/4 on device 0 from 2 ranks, formed through the job's rendezvous",
                records.get(0).getMessage());

        comm.close();
        assertFalse(job.closed, "the job passed to the grown communicator");
        grown[0].close();
        assertTrue(job.closed, "the grown communicator leaves the job when it closes");
    }

    @Test
    void aGrowthEndsAtItsFirstBindAsARecoveryOfKindGrow() {
        DeviceCommunicator comm = new GrowingJob(0, 2, false).joinedBy(api);

        Communicator[] grown = new Communicator[1];
        List<RecordedEvent> events = RecoveryEvents.during(() -> RecoveryEvents.bindOn(grown[0] = comm.grow(1, WAIT)));

        assertEquals(1, events.size(), events.toString());
        assertEquals(
                "grow recovered on rank 0: 2 -> 3 ranks, excluded [], bound", RecoveryEvents.summary(events.get(0)));
        grown[0].close();
        comm.close();
    }

    @Test
    void aGrowthThatFailsLeavesTheCommunicatorAtItsSizeAndTheJobWatchedAgain() {
        GrowingJob job = new GrowingJob(0, 2, false);
        job.growthFailure = "growth #3 asked for 2 processes to join, 1 came to " + ScriptedJobBase.WHERE
                + " within 30 s; the job goes on with its 2 ranks";
        DeviceCommunicator comm = job.joinedBy(api);

        CollectivesException[] failed = new CollectivesException[1];
        List<RecordedEvent> events = RecoveryEvents.during(
                () -> failed[0] = assertThrows(CollectivesException.class, () -> comm.grow(2, WAIT)));

        CollectivesException e = failed[0];
        assertTrue(e.getMessage().endsWith(job.growthFailure), e.getMessage());
        assertEquals(1, events.size(), events.toString());
        assertEquals(
                "grow failed on rank 0: 2 -> 0 ranks, excluded [], not bound", RecoveryEvents.summary(events.get(0)));
        assertTrue(
                events.get(0).getString("failure").endsWith(job.growthFailure),
                events.get(0).getString("failure"));
        assertEquals(List.of("watch", "unwatch", "grow by 2 within 30 s", "watch"), job.operations);
        assertEquals(1, api.count("commInitRank"), "no communicator was formed but the first");
        comm.createStream().close(); // it goes on at its size
        job.fail(1, "rank 1 at /127.0.0.1:41000 is gone: its connection ended while the job ran");
        CollectivesException later = assertThrows(CollectivesException.class, comm::createStream);
        assertTrue(later.getMessage().contains("rank 1 at /127.0.0.1:41000 is gone"), later.getMessage());
        comm.close();
        assertTrue(job.closed);
    }

    @Test
    void aCommunicatorWithADeadRankDoesNotGrowAndSaysWhy() throws Exception {
        GrowingJob job = new GrowingJob(0, 3, false);
        DeviceCommunicator comm = job.afterRankOneDied(api);

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.grow(1, WAIT));

        assertEquals(
                "rank 0: grow: nccl rank 0/3 on device 0 is aborted (a rank died, or it was aborted): a job grows from"
                        + " a communicator whose ranks are all alive; shrink the dead ranks away or reform first, then"
                        + " grow",
                e.getMessage());
        comm.close();
    }

    @Test
    void aCommunicatorWithoutAJobToGrowSaysWhy() {
        DeviceCommunicator comm = api.communicator(0, 2);

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.grow(1, WAIT));

        assertEquals(
                "rank 0: grow: nccl rank 0/2 on device 0 cannot take in processes that join: only the communicator"
                        + " of a job of processes joined through a tcp:// rendezvous can, or one that its survivors"
                        + " shrank or grew (not one of threads of one process, nor a child of split, which holds a part"
                        + " of the job)",
                e.getMessage());
        comm.close();
    }

    @Test
    void aSplitsChildDoesNotGrowAndSaysWhy() {
        GrowingJob job = new GrowingJob(0, 4, false);
        DeviceCommunicator comm = job.joinedBy(api);
        api.children(2, 0).gathers(0, 2);
        Communicator child = comm.split(1, 0).orElseThrow();

        CollectivesException e = assertThrows(CollectivesException.class, () -> child.grow(1, WAIT));

        assertTrue(
                e.getMessage()
                        .endsWith("(not one of threads of one process, nor a child of split, which holds a"
                                + " part of the job)"),
                e.getMessage());
        assertEquals(List.of("watch"), job.operations, "the job was not touched");
        comm.close();
    }

    /**
     * A job of 4 whose rank 2 died shrank to ranks 0, 1, 3 of the job, and grows by 1: the process that joins is rank
     * 3 of the grown communicator and rank 4 of the job, and a death after it is named in both numberings.
     */
    @Test
    void aShrinksChildGrowsAndTheProcessThatJoinsTakesTheNumbersAfterItsSizeAndAfterTheJobsHighest() throws Exception {
        api.lacking("CommGrow");
        GrowingJob job = new GrowingJob(0, 4, false);
        DeviceCommunicator comm = job.joinedBy(api);
        Communicator shrunk = job.shrunkAfterRankTwoDied(comm, api);
        job.operations.clear();

        Communicator[] grown = new Communicator[1];
        List<LogRecord> records =
                LogCapture.capture("dev.collectives.recovery", Level.ALL, () -> grown[0] = shrunk.grow(1, WAIT));

        assertEquals(0, grown[0].rank());
        assertEquals(4, grown[0].size());
        assertEquals(4, api.lastInit().size(), "the survivors and the process that joined, without the dead rank");
        assertEquals(
                List.of(
                        "unwatch",
                        "grow by 1 within 30 s",
                        "allgather of survivors", // the live ranks meet: ranks 0, 1, 3, 4 of the job
                        "allgather of survivors", // they agree on the backend
                        "allgather of survivors", // the id's length
                        "allgather of survivors", // the id
                        "allgather of survivors", // ranks per node
                        "watch"),
                job.operations);
        assertEquals(
                "grow: nccl rank 0/4 on device 0 from 3 ranks, formed through the job's rendezvous",
                records.get(records.size() - 1).getMessage());

        job.die(4, "rank 4 at /127.0.0.1:41004 is gone: its connection ended while the job ran");
        api.awaitCount("commAbort", 2);
        CollectivesException e = assertThrows(CollectivesException.class, grown[0]::createStream);
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: the communicator failed: the job failed: rank 4 of the job (rank 3 of this"
                        + " communicator, grown without the job's rank 2) at /127.0.0.1:41004 is gone: its connection"
                        + " ended while the job ran; the communicator was aborted",
                e.getMessage());
        grown[0].close();
        comm.close();
        assertTrue(job.closed);
    }

    @Test
    void whereTheLibraryHasCommGrowAShrinksChildGrowsToItsSizeAndTheJoinerPassesItsRankThere() throws Exception {
        GrowingJob job = new GrowingJob(0, 4, false);
        DeviceCommunicator comm = job.joinedBy(api);
        DeviceCommunicator shrunk = (DeviceCommunicator) job.shrunkAfterRankTwoDied(comm, api);

        Communicator grown = shrunk.grow(1, WAIT);

        ScriptedNativeApi.GrowCall call = api.lastGrow();
        assertEquals(shrunk.nativeComm().handle(), call.parent(), "the shrink's child grows");
        assertEquals(4, call.size(), "to its size and the process that joins");
        assertEquals(-1, call.rank());
        assertEquals(9, call.id()[0], "rank 0 passes the grow's id");
        grown.close();
        comm.close();

        GrowingJob joiner = new GrowingJob(4, 5, true);
        joiner.dead.set(2);
        DeviceCommunicator joined = DeviceJoin.joinJob(api.library(), joiner, 0, 1, 0, CommConfig.DEFAULT, WAIT);

        assertEquals(3, joined.rank(), "the rank after the shrink's child's 3");
        assertEquals(4, joined.size());
        assertEquals(0, api.lastGrow().parent());
        assertEquals(3, api.lastGrow().rank());
        assertEquals(4, api.lastGrow().size());
        joiner.fail(3, "rank 3 at /127.0.0.1:41003 is gone: its connection ended while the job ran");
        api.awaitCount("commAbort", 2);
        CollectivesException e = assertThrows(CollectivesException.class, joined::createStream);
        assertTrue(
                e.getMessage()
                        .contains("the job failed: rank 3 of the job (rank 2 of this communicator, grown without the"
                                + " job's rank 2) at /127.0.0.1:41003 is gone"),
                e.getMessage());
        joined.close();
        assertTrue(joiner.closed);
    }

    @Test
    void whereTheLibraryHasCommGrowRankZeroMakesTheGrowsIdAndEveryRankGrowsTheCommunicator() {
        GrowingJob job = new GrowingJob(0, 2, false);
        DeviceCommunicator comm = job.joinedBy(api);

        Communicator[] grown = new Communicator[1];
        List<LogRecord> records =
                LogCapture.capture("dev.collectives.recovery", Level.ALL, () -> grown[0] = comm.grow(1, WAIT));

        assertEquals(0, grown[0].rank());
        assertEquals(3, grown[0].size());
        assertEquals(1, api.count("commGetUniqueId"), "rank 0 makes the grow's id from its communicator");
        ScriptedNativeApi.GrowCall call = api.lastGrow();
        assertEquals(comm.nativeComm().handle(), call.parent());
        assertEquals(3, call.size());
        assertEquals(-1, call.rank(), "a rank of the communicator keeps its rank");
        assertEquals(9, call.id()[0], "rank 0 passes the grow's id");
        assertEquals(1, api.count("commInitRank"), "no communicator was formed anew");
        assertEquals(
                List.of(
                        "watch",
                        "unwatch",
                        "grow by 1 within 30 s",
                        "allgather of survivors",
                        "allgather",
                        "broadcast",
                        "allgather",
                        "watch"),
                job.operations);
        assertEquals(
                "grow: nccl rank 0/3 on device 0 from 2 ranks, formed by ncclCommGrow",
                records.get(0).getMessage());
        grown[0].close();
        comm.close();
    }

    @Test
    void aProcessThatJoinsGrowsWithTheIdFromRankZeroWhereTheLibraryHasCommGrow() {
        GrowingJob job = new GrowingJob(2, 3, true);

        DeviceCommunicator comm = DeviceJoin.joinJob(api.library(), job, 0, 1, 0, CommConfig.DEFAULT, WAIT);

        assertEquals(2, comm.rank());
        assertEquals(3, comm.size());
        ScriptedNativeApi.GrowCall call = api.lastGrow();
        assertEquals(0, call.parent(), "a process that joins has no communicator to grow from");
        assertEquals(2, call.rank());
        assertEquals(3, call.size());
        assertEquals(0, api.count("commInitRank"));
        comm.close();
    }

    @Test
    void aProcessThatJoinsWaitsForTheGrowthThenFormsTheCommunicatorAsTheRanksDo() {
        api.lacking("CommGrow");
        GrowingJob job = new GrowingJob(2, 3, true);

        DeviceCommunicator comm = DeviceJoin.joinJob(api.library(), job, 0, 1, 0, CommConfig.DEFAULT, WAIT);

        assertEquals(2, comm.rank());
        assertEquals(3, comm.size());
        assertEquals(
                List.of(
                        "grow by 0 within 30 s",
                        "allgather of survivors",
                        "allgather",
                        "broadcast",
                        "allgather",
                        "watch"),
                job.operations);
        assertTrue(job.watched, "the process that joined watches the job");
        comm.close();
        assertTrue(job.closed);
    }

    /**
     * A job as rank {@code rank} sees it through its rendezvous: {@code size} ranks before a growth, which adds those
     * the ranks ask for unless {@link #growthFailure} says why not; a process that {@code joins} holds rank
     * {@code rank} of {@code size} once the job grew.
     */
    private static final class GrowingJob extends ScriptedJobBase {
        volatile String growthFailure;
        final BitSet dead = new BitSet();
        private final boolean joins;
        private volatile int grownSize;

        GrowingJob(int rank, int size, boolean joins) {
            super(rank, size);
            this.joins = joins;
            this.grownSize = size;
        }

        /** This rank's communicator on {@code api}, which watches this job. */
        DeviceCommunicator joinedBy(ScriptedNativeApi api) {
            DeviceCommunicator comm = api.communicator(rank, size);
            comm.watchJob(this, JobRanks.ofJob(this.size()), CommConfig.DEFAULT);
            return comm;
        }

        @Override
        public boolean watch(Consumer<Cause> onFailure) {
            operations.add("watch");
            return super.watch(onFailure);
        }

        @Override
        public Optional<String> unwatch() {
            operations.add("unwatch");
            return Optional.empty();
        }

        @Override
        public boolean joining() {
            return joins;
        }

        @Override
        public int grow(int added, Duration timeout) {
            operations.add("grow by " + added + " within " + timeout.toSeconds() + " s");
            if (growthFailure != null) {
                throw BootstrapException.growthFailed(rank, growthFailure);
            }
            grownSize = joins ? size : size + added;
            return grownSize;
        }

        @Override
        public int size() {
            return grownSize;
        }

        /** {@code comm}'s shrink's child once rank 2 of the job died, which aborted it: ranks 0, 1, 3 of the job. */
        Communicator shrunkAfterRankTwoDied(DeviceCommunicator comm, ScriptedNativeApi api)
                throws InterruptedException {
            die(2, "rank 2 at /127.0.0.1:41002 is gone: its connection ended while the job ran");
            api.awaitCount("commAbort", 1);
            return comm.shrink(2);
        }

        /** Rank {@code rank} of the job dies: the job's watch hears {@code why}, and it is gone from then on. */
        void die(int rank, String why) {
            dead.set(rank);
            fail(rank, why);
        }

        @Override
        public Optional<String> resumeAmongSurvivors() {
            return Optional.empty();
        }

        /**
         * Each live rank contributes what this one does, but to a gather of 4 bytes (the length of the value that the
         * first live rank broadcasts) the first one, where this is not it, says the length of a unique id and a claim
         * of a communicator's name.
         */
        @Override
        public Survivors allGatherOfSurvivors(byte[] value) {
            operations.add("allgather of survivors");
            Survivors all = new Survivors(new byte[grownSize][], new String[grownSize]);
            int first = dead.nextClearBit(0);
            for (int r = 0; r < grownSize; r++) {
                if (dead.get(r)) {
                    all.goneReasons()[r] = "rank " + r + " is gone";
                } else {
                    boolean firstsLength = r == first && rank != first && value.length == Integer.BYTES;
                    all.values()[r] = firstsLength
                            ? ByteBuffer.allocate(Integer.BYTES)
                                    .putInt(UniqueId.BYTES + Lineage.newJob().claim().length)
                                    .array()
                            : value;
                }
            }
            return all;
        }

        @Override
        public byte[] broadcast(byte[] value) {
            operations.add("broadcast");
            return rank == 0 ? value : new byte[value.length];
        }

        @Override
        public byte[][] allGather(byte[] value) {
            operations.add("allgather");
            byte[][] all = new byte[grownSize][];
            Arrays.fill(all, value);
            return all;
        }
    }
}
