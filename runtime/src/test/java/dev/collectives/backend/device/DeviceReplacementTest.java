package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.LogCapture;
import dev.collectives.runtime.RecoveryEvents;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.spi.JobRanks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A dead rank replaced on the device backend, on a scripted native library ({@link ScriptedNativeApi}) and a scripted
 * job: the survivors reform a communicator of the job's size with the process started in the dead rank's place,
 * from rank 0's new unique id, and the new communicator takes the job over.
 */
class DeviceReplacementTest {
    private static final String GONE = ScriptedJobBase.RANK_ONE_GONE;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ScriptedNativeApi api = new ScriptedNativeApi();

    @AfterEach
    void nothingWasFreedTwiceOrUsedAfterItWasFreed() {
        assertEquals(List.of(), api.misuse());
    }

    @Test
    void theSurvivorsReformACommunicatorOfTheJobsSizeFromRankZerosNewId() throws Exception {
        ScriptedJob job = new ScriptedJob(2, 3, false);
        DeviceCommunicator comm = job.afterRankOneDied(api);

        List<LogRecord> records = new ArrayList<>();
        Communicator[] reformed = new Communicator[1];
        records.addAll(
                LogCapture.capture("dev.collectives.recovery", Level.ALL, () -> reformed[0] = comm.reform(WAIT)));

        assertEquals(2, reformed[0].rank());
        assertEquals(3, reformed[0].size());
        assertEquals(0, api.count("getUniqueId"), "rank 0 makes the id");
        ScriptedNativeApi.Init init = api.lastInit();
        assertEquals(3, init.size());
        assertEquals(2, init.rank());
        assertArrayEquals(ScriptedJob.RANK_ZEROS_ID, init.id());
        assertEquals(
                List.of("resume", "reunion within 30 s", "allgather", "broadcast", "allgather"),
                job.operations,
                "resumed, met the replacement, agreed on the backend, shared the id, counted ranks per node");
        assertEquals(1, records.size(), records.toString());
        assertEquals(
                "reform: nccl rank 2/3 on device 0 with the replacements of ranks [1], formed through the job's "
                        + "rendezvous",
                records.get(0).getMessage());

        comm.close();
        assertFalse(job.closed, "the job passed to the reformed communicator");
        reformed[0].close();
        assertTrue(job.closed, "the reformed communicator leaves the job when it closes");
    }

    @Test
    void aReformWithTheReplacementEndsAtItsFirstBind() throws Exception {
        DeviceCommunicator comm = new ScriptedJob(2, 3, false).afterRankOneDied(api);

        Communicator[] reformed = new Communicator[1];
        List<RecordedEvent> events =
                RecoveryEvents.during(() -> RecoveryEvents.bindOn(reformed[0] = comm.reform(Duration.ofSeconds(30))));

        assertEquals(1, events.size(), events.toString());
        assertEquals(
                "replace recovered on rank 2: 3 -> 3 ranks, excluded [], bound", RecoveryEvents.summary(events.get(0)));
        reformed[0].close();
        comm.close();
    }

    /**
     * Rank 2 dies while the library forms the reformed communicator (its id was shared, and the library waits for
     * every rank): the reform fails at once naming rank 2 and the death it recovers from, not at the library's
     * timeout, and the communicator being formed is aborted.
     */
    @Test
    void aDeathWhileTheLibraryFormsTheReformedCommunicatorFailsTheReformNamingBoth() throws Exception {
        ScriptedJob job = new ScriptedJob(0, 3, false);
        DeviceCommunicator comm = job.afterRankOneDied(api);
        String rankTwoGone = "rank 2 at /127.0.0.1:41002 is gone: its connection ended while the job ran";
        api.inProgress("commInitRank", ScriptedNativeApi.FOREVER).on("commInitRank", () -> job.fail(2, rankTwoGone));

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.reform(WAIT));

        assertEquals(
                "[REMOTE_ERROR 6] rank 0: ncclCommInitRank failed: the job failed again while the survivors formed "
                        + "their communicator: " + rankTwoGone + "; they were recovering from: "
                        + ScriptedJobBase.RANK_ONE_GONE + "; the communicator being formed was aborted: the survivors "
                        + "may recover again, from every rank that died",
                e.getMessage());
        api.awaitCount("commAbort", 2); // the parent, and the communicator that did not form
        comm.close();
    }

    @Test
    void aDeathAfterTheReformIsReportedOnTheReformedCommunicator() throws Exception {
        ScriptedJob job = new ScriptedJob(0, 3, false);
        DeviceCommunicator comm = job.afterRankOneDied(api);
        Communicator reformed = comm.reform(WAIT);
        assertEquals(1, api.count("getUniqueId"), "rank 0 makes the new id");

        job.fail(2, "rank 2 at /127.0.0.1:41002 is gone: its connection ended while the job ran");
        api.awaitCount("commAbort", 2);
        CollectivesException e = assertThrows(CollectivesException.class, reformed::createStream);
        assertTrue(e.getMessage().contains("the job failed: rank 2 at /127.0.0.1:41002 is gone"), e.getMessage());
        reformed.close();
        comm.close();
    }

    @Test
    void aChildOfTheReformedCommunicatorSharesTheJobsWatch() throws Exception {
        ScriptedJob job = new ScriptedJob(0, 3, false);
        DeviceCommunicator comm = job.afterRankOneDied(api);
        Communicator reformed = comm.reform(WAIT);
        api.children(2, 0).gathers(0, 2);
        Communicator child = reformed.split(1, 0).orElseThrow();
        comm.close();
        assertFalse(job.closed, "the reformed communicator and its child watch the job");

        job.fail(2, "rank 2 at /127.0.0.1:41002 is gone: its connection ended while the job ran");
        api.awaitCount("commAbort", 3); // the first communicator's, then the reformed one's and its child's
        CollectivesException e = assertThrows(CollectivesException.class, child::createStream);
        assertTrue(
                e.getMessage()
                        .contains("the job failed: rank 2 of the job (rank 1 of this communicator, split with color 1)"
                                + " at /127.0.0.1:41002 is gone"),
                e.getMessage());
        reformed.close();
        assertTrue(job.closed);
    }

    @Test
    void theReplacementMeetsTheSurvivorsThenFormsTheCommunicatorAsTheyDo() {
        ScriptedJob job = new ScriptedJob(1, 3, true);

        DeviceCommunicator comm = DeviceJoin.joinJob(api.library(), job, 1, 3, 0, CommConfig.DEFAULT, WAIT);

        assertEquals(1, comm.rank());
        assertEquals(3, comm.size());
        assertEquals(List.of("reunion within 30 s", "allgather", "broadcast", "allgather"), job.operations);
        assertArrayEquals(ScriptedJob.RANK_ZEROS_ID, api.lastInit().id());
        assertTrue(job.watched, "the replacement watches the job");
        comm.close();
        assertTrue(job.closed);
    }

    @Test
    void withoutAReplacementInTimeTheReformFailsNamingTheRank() throws Exception {
        ScriptedJob job = new ScriptedJob(2, 3, false);
        job.reunionFailure = "no replacement joined at tcp://127.0.0.1:41000 within 30 s for rank 1 (" + GONE + ")";
        DeviceCommunicator comm = job.afterRankOneDied(api);

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.reform(WAIT));
        assertTrue(e.getMessage().endsWith(job.reunionFailure), e.getMessage());
        assertEquals(1, api.count("commInitRank"), "no communicator was formed but the first");
        assertTrue(job.closed);
        comm.close();
    }

    @Test
    void aChildIsNotReformedAndSaysWhy() throws Exception {
        ScriptedJob job = new ScriptedJob(0, 4, false);
        DeviceCommunicator comm = job.afterRankOneDied(api);
        Communicator shrunk = comm.shrink(1);

        CollectivesException e = assertThrows(CollectivesException.class, () -> shrunk.reform(WAIT));
        assertEquals(
                "rank 0: reform: " + shrunk + " cannot admit a replacement for a rank that died: only the "
                        + "communicator of a job of processes joined through a tcp:// rendezvous can (not one of "
                        + "threads of one process, nor a child of split or shrink)",
                e.getMessage());
        comm.close();
    }

    @Test
    void aCommunicatorThatIsOpenIsNotReformedAndSaysWhy() {
        DeviceCommunicator comm = api.communicator(0, 2);
        ScriptedJob job = new ScriptedJob(0, 2, false);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.reform(WAIT));
        assertEquals(
                "rank 0: reform: nccl rank 0/2 on device 0 is not aborted: reform forms a communicator with the "
                        + "replacements of ranks that died, once their death aborted it (shrink leaves ranks out of "
                        + "an open communicator)",
                e.getMessage());
        comm.close();
    }

    @Test
    void anAbortedCommunicatorWithoutAJobCannotBeReformedAndSaysSo() {
        DeviceCommunicator comm = api.communicator(0, 2);
        comm.abort();

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.reform(WAIT));
        assertTrue(
                e.getMessage()
                        .startsWith("rank 0: reform: the communicator was aborted; the "
                                + "survivors form a new communicator through the job's tcp:// rendezvous, and this "
                                + "communicator has none"),
                e.getMessage());
        comm.close();
    }

    /**
     * A job as rank {@code rank} of {@code size} sees it through its rendezvous: the test says when the watch hears
     * of a death; the reunion replaces rank 1, unless {@link #reunionFailure} says why not; rank 0's unique id is
     * {@link #RANK_ZEROS_ID} where this rank is not rank 0.
     */
    private static final class ScriptedJob extends ScriptedJobBase {
        static final byte[] RANK_ZEROS_ID = filled();

        volatile String reunionFailure;
        private final boolean replacement;

        ScriptedJob(int rank, int size, boolean replacement) {
            super(rank, size);
            this.replacement = replacement;
        }

        private static byte[] filled() {
            byte[] id = new byte[UniqueId.BYTES];
            Arrays.fill(id, (byte) 7);
            return id;
        }

        @Override
        public Optional<String> resumeAmongSurvivors() {
            operations.add("resume");
            return Optional.empty();
        }

        @Override
        public boolean replacement() {
            return replacement;
        }

        @Override
        public int[] reunite(Duration timeout) {
            operations.add("reunion within " + timeout.toSeconds() + " s");
            if (reunionFailure != null) {
                close(); // as a failed rendezvous does
                throw CollectivesException.usage(rank, reunionFailure);
            }
            return new int[] {1};
        }

        @Override
        public byte[] broadcast(byte[] value) {
            operations.add("broadcast");
            // rank 0's id, and its claim of the communicator's name, which is this survivor's too
            byte[] fromRankZero = Arrays.copyOf(RANK_ZEROS_ID, value.length);
            System.arraycopy(value, UniqueId.BYTES, fromRankZero, UniqueId.BYTES, value.length - UniqueId.BYTES);
            return rank == 0 ? value : fromRankZero;
        }

        @Override
        public byte[][] allGather(byte[] value) {
            operations.add("allgather");
            byte[][] all = new byte[size][];
            Arrays.fill(all, value);
            return all;
        }
    }
}
