package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.JobRanks;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The children of a watched job's communicator on the device backend, on a scripted native library
 * ({@link ScriptedNativeApi}) and a scripted job: a split's, a shrink's and a second shrink's child share the job's
 * watch, so that a death among their ranks aborts them behind and their failure names the dead rank in the job's
 * numbering and in theirs, while a child without the dead rank goes on; closing children keeps the watch for the
 * others, and the last one leaves the job.
 */
class DeviceChildWatchTest {
    private static final String RANK_THREE_GONE =
            "rank 3 at /127.0.0.1:41003 is gone: its connection ended while the job ran";
    private static final String SPLIT = "split with color 1";
    private static final String SURVIVORS =
            "shrunk from rank 0 of 4 without rank 1, formed anew among the survivors through the job's rendezvous";

    private final ScriptedNativeApi api = new ScriptedNativeApi();

    @AfterEach
    void nothingWasFreedTwiceOrUsedAfterItWasFreed() {
        assertEquals(List.of(), api.misuse());
    }

    @Test
    void aSplitChildWithTheDeadRankFailsNamingItInTheJobAndInTheChild() throws Exception {
        ScriptedJob job = new ScriptedJob(1, 4);
        DeviceCommunicator comm = job.watched(api);
        Stream stream = comm.createStream();
        Communicator child = splitAs(comm, 0, 1, 3); // rank 1 of the job is rank 0 of the child, rank 3 is rank 1
        DeviceBuffer buffer = child.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.streamsNeverFinish().on("streamQuery", () -> job.fail(3, RANK_THREE_GONE));
        child.allReduce(buffer, buffer, 256, DataType.FLOAT32, ReduceOp.SUM, stream);

        CollectivesException pending = assertThrows(CollectivesException.class, stream::synchronize);
        String named = "[REMOTE_ERROR 6] rank 0: the communicator failed: the job failed: rank 3 of the job (rank 1 of"
                + " this communicator, " + SPLIT + ") at /127.0.0.1:41003 is gone: its connection ended while the "
                + "job ran; the communicator was aborted";
        assertEquals(named, pending.getMessage());
        api.awaitCount("commAbort", 2); // the child's, and the joined one's, which holds rank 3 too
        CollectivesException next = assertThrows(CollectivesException.class, child::createStream);
        assertEquals(named, next.getMessage());
        CollectivesException joined = assertThrows(CollectivesException.class, comm::createStream);
        assertEquals(
                "[REMOTE_ERROR 6] rank 1: the communicator failed: the job failed: " + RANK_THREE_GONE
                        + "; the communicator was aborted",
                joined.getMessage());

        buffer.close();
        stream.close();
        comm.close();
        assertTrue(job.closed);
    }

    @Test
    void aSplitChildWithoutTheDeadRankGoesOn() throws Exception {
        ScriptedJob job = new ScriptedJob(1, 4);
        DeviceCommunicator comm = job.watched(api);
        Communicator child = splitAs(comm, 0, 1, 3);

        job.fail(2, "rank 2 at /127.0.0.1:41002 is gone: its connection ended while the job ran");
        api.awaitCount("commAbort", 1);
        assertTrue(comm.nativeComm().isAborted(), "the joined communicator holds rank 2");
        Stream stream = child.createStream();
        DeviceBuffer buffer = child.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        child.allReduce(buffer, buffer, 256, DataType.FLOAT32, ReduceOp.SUM, stream);
        stream.synchronize();
        assertEquals(1, api.count("commAbort"), "the child was not aborted");

        buffer.close();
        stream.close();
        child.close();
        assertFalse(job.closed, "the aborted joined communicator still holds the job");
        comm.close();
        assertTrue(job.closed);
    }

    @Test
    void aShrunkChildNamesASecondDeathAndShrinksAgainInTheJobsNumbering() throws Exception {
        ScriptedJob job = new ScriptedJob(0, 4);
        DeviceCommunicator comm = job.watched(api);
        job.die(1, "rank 1 at /127.0.0.1:41001 is gone: its connection ended while the job ran");
        api.awaitCount("commAbort", 1);
        Communicator shrunk = comm.shrink(1); // ranks 0, 2, 3 of the job
        assertEquals(3, shrunk.size());

        job.die(3, RANK_THREE_GONE);
        api.awaitCount("commAbort", 2);
        CollectivesException e = assertThrows(CollectivesException.class, shrunk::createStream);
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: the communicator failed: the job failed: rank 3 of the job (rank 2 of this "
                        + "communicator, " + SURVIVORS + ") at /127.0.0.1:41003 is gone: its connection ended while "
                        + "the job ran; the communicator was aborted",
                e.getMessage());

        Communicator twice = shrunk.shrink(2); // rank 3 of the job
        assertEquals(2, twice.size());
        assertEquals(0, twice.rank());
        assertEquals(
                List.of(
                        "resume",
                        "allgather of survivors",
                        "allgather of survivors",
                        "resume",
                        "allgather of survivors",
                        "allgather of survivors"),
                job.operations);
        assertArrayEquals(leftOut(1, 3), job.contributions.get(2), "left out: ranks 1 and 3 of the job");
        comm.close();
        assertTrue(job.closed, "the last communicator of the job left it");
    }

    @Test
    void closingChildrenKeepsTheWatchForTheParentAndTheLastToCloseLeavesTheJob() throws Exception {
        ScriptedJob job = new ScriptedJob(0, 4);
        DeviceCommunicator comm = job.watched(api);
        Communicator split = splitAs(comm, 0, 0, 2);
        api.children(3, 0);
        Communicator shrunk = comm.shrink(3); // revoked: the parent only closes now
        split.close();
        split.close();
        shrunk.close();
        assertFalse(job.closed, "the parent still watches the job");

        job.fail(2, "rank 2 at /127.0.0.1:41002 is gone: its connection ended while the job ran");
        api.awaitCount("commAbort", 1);
        assertEquals(1, api.count("commAbort"), "the closed children are no longer watched");
        CollectivesException e = assertThrows(CollectivesException.class, comm::createStream);
        assertTrue(e.getMessage().contains("the job failed: rank 2 at /127.0.0.1:41002 is gone"), e.getMessage());
        comm.close();
        comm.close();
        assertTrue(job.closed);
    }

    @Test
    void aSplitWhoseChildCannotGatherItsRanksFailsAndLeavesNoChild() {
        ScriptedJob job = new ScriptedJob(1, 4);
        DeviceCommunicator comm = job.watched(api);
        api.children(2, 0).failing("allGather", Result.REMOTE_ERROR.code());

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.split(1, 1));
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: ncclAllGather of ncclInt32 failed: remote process exited or there was a "
                        + "network error",
                e.getMessage());
        assertEquals(1, api.count("commAbort"), "the child was aborted");
        comm.createStream().close();
        comm.close();
        assertEquals(1, api.count("commFinalize"), "the parent; the aborted child was freed by its abort");
        assertTrue(job.closed);
    }

    @Test
    void aChildsAbortStopsThisRanksUseOfItAndLeavesTheJobAlone() throws Exception {
        ScriptedJob job = new ScriptedJob(1, 4);
        DeviceCommunicator comm = job.watched(api);
        Communicator child = splitAs(comm, 0, 1, 3);

        child.abort();
        assertEquals(List.of(), job.operations, "the job goes on");
        comm.createStream().close();
        comm.close();
        assertTrue(job.closed);
    }

    @Test
    void aChildThatTimesOutFailsAloneWithoutAskingTheJobForAVerdict() {
        ScriptedJob job = new ScriptedJob(1, 4);
        DeviceCommunicator comm = job.watched(api);
        Communicator child = splitAs(comm, 0, 1, 3);
        Stream stream = child.createStream();
        DeviceBuffer buffer = child.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.streamsNeverFinish();
        child.allReduce(buffer, buffer, 256, DataType.FLOAT32, ReduceOp.SUM, stream);

        CollectivesException e = assertThrows(CollectivesException.class, stream::synchronize);
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: stream synchronize failed: no completion within 2 s; the communicator was "
                        + "aborted",
                e.getMessage());
        assertEquals(List.of(), job.operations, "rank 0's verdict would count ranks that never call the child");
        assertFalse(comm.nativeComm().isAborted());

        buffer.close();
        stream.close();
        comm.close();
    }

    /** {@code comm}'s split child, of color 1, whose ranks are {@code parentRanks} of {@code comm}, this one {@code rank}. */
    private Communicator splitAs(DeviceCommunicator comm, int rank, int... parentRanks) {
        api.children(parentRanks.length, rank).gathers(parentRanks);
        Optional<Communicator> child = comm.split(1, rank);
        assertEquals(parentRanks.length, child.orElseThrow().size());
        return child.get();
    }

    private static byte[] leftOut(int... ranks) {
        BitSet bits = new BitSet();
        for (int rank : ranks) {
            bits.set(rank);
        }
        return bits.toByteArray();
    }

    /**
     * A job as rank {@code rank} of {@code size} sees it through its rendezvous: the test says when a rank dies
     * ({@link #die}); the survivors meet again, each contributing what this rank does to every allgather of
     * survivors, which leaves the dead ranks out.
     */
    private static final class ScriptedJob extends ScriptedJobBase {
        final List<byte[]> contributions = new CopyOnWriteArrayList<>();
        private final BitSet dead = new BitSet();

        ScriptedJob(int rank, int size) {
            super(rank, size);
        }

        DeviceCommunicator watched(ScriptedNativeApi api) {
            DeviceCommunicator comm = api.communicator(rank, size);
            comm.watchJob(this, JobRanks.ofJob(this.size()), CommConfig.DEFAULT);
            return comm;
        }

        void die(int rank, String why) {
            dead.set(rank);
            fail(rank, why);
        }

        @Override
        public void stalled(String where) {
            operations.add("stalled: " + where);
        }

        @Override
        public Optional<String> resumeAmongSurvivors() {
            operations.add("resume");
            return Optional.empty();
        }

        @Override
        public Survivors allGatherOfSurvivors(byte[] value) {
            operations.add("allgather of survivors");
            contributions.add(value.clone());
            return survivors(dead::get, r -> value);
        }
    }
}
