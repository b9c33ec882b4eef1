package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LogCapture;
import dev.collectives.runtime.RecoveryEvents;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.bootstrap.RankThreadsForTests;
import dev.collectives.runtime.spi.JobRanks;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.IntStream;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Recovery on the device backend, on a scripted native library ({@link ScriptedNativeApi}) and a scripted job
 * ({@link ScriptedJob}): a shrink after a death forms a new communicator among the survivors through the job's
 * rendezvous, a shrink while every rank is alive revokes and shrinks through the library, and what a pipeline owns
 * is freed only once the abort has returned.
 */
class DeviceRecoveryTest {
    private static final String GONE = ScriptedJobBase.RANK_ONE_GONE;
    private static final String REFORMED = "formed anew among the survivors through the job's rendezvous";

    private final ScriptedNativeApi api = new ScriptedNativeApi();

    @AfterEach
    void nothingWasFreedTwiceOrUsedAfterItWasFreed() {
        assertEquals(List.of(), api.misuse());
    }

    @Test
    void afterADeathTheSurvivorsFormANewCommunicatorWithTheLowestSurvivorsId() throws Exception {
        ScriptedJob job = new ScriptedJob(2, 3, 1);
        DeviceCommunicator comm = job.afterRankOneDied(api);

        List<LogRecord> records = new ArrayList<>();
        Communicator child = captureRecovery(records, () -> comm.shrink(1));

        assertEquals(1, child.rank());
        assertEquals(2, child.size());
        assertEquals(0, api.count("getUniqueId"), "rank 0, the lowest survivor, makes the id");
        assertEquals(0, api.count("commShrink"));
        ScriptedNativeApi.Init init = api.lastInit();
        assertEquals(2, init.size());
        assertEquals(1, init.rank());
        assertArrayEquals(ScriptedJob.LOWEST_SURVIVORS_ID, init.id());
        assertEquals(List.of("resume", "allgather of survivors", "allgather of survivors"), job.operations);
        String described = "nccl rank 1/2 on device 0 (shrunk from rank 2 of 3 without rank 1, " + REFORMED + ")";
        assertEquals(described, child.toString());
        assertEquals(2, records.size(), records.toString());
        assertTrue(
                records.get(0)
                        .getMessage()
                        .matches("shrink: rank 2 formed the survivors' communicator of 2 ranks \\d+ ms after hearing"
                                + " of the death: the survivors met in \\d+ ms, ncclCommInitRank took \\d+ ms"),
                records.get(0).getMessage());
        assertEquals("shrink: " + described, records.get(1).getMessage());

        comm.close();
        assertEquals(1, api.count("commFinalize"), "the child is finalized, the aborted parent was freed");
        assertTrue(job.closed, "the job is left with the parent");
    }

    /**
     * Rank 1 of a job over a real rendezvous falls silent (frozen, or cut off) and its library reports the failure
     * at once on ranks 0 and 2: their shrink waits for the job to declare rank 1 dead, which it does only after
     * the heartbeat timeout (8 s here), twice as long as a shrink once waited.
     */
    @Test
    void aShrinkAfterTheLibrarySawADeathWaitsAsLongAsTheJobTakesToDeclareIt() throws Exception {
        int port = RankThreadsForTests.freePort();
        ExecutorService ranks = Executors.newFixedThreadPool(2);
        Future<String> rankZero = ranks.submit(() -> shrinkAfterTheLibrarySawRankOneFail(port, 0));
        Future<String> rankTwo = ranks.submit(() -> shrinkAfterTheLibrarySawRankOneFail(port, 2));
        // rank 1 joins once rank 0 serves the job, then says nothing, not even a heartbeat
        try (Socket silentRankOne = RankThreadsForTests.admittedAs(port, 1, 3)) {
            String shrunk = "(shrunk from rank %d of 3 without rank 1, " + REFORMED + ")";
            assertEquals("nccl rank 0/2 on device 0 " + shrunk.formatted(0), rankZero.get());
            assertEquals("nccl rank 1/2 on device 0 " + shrunk.formatted(2), rankTwo.get());
        } finally {
            ranks.shutdownNow();
        }
    }

    private static String shrinkAfterTheLibrarySawRankOneFail(int port, int rank) {
        Bootstrap bootstrap = Bootstrap.builder()
                .rank(rank)
                .size(3)
                .rendezvous("tcp://127.0.0.1:" + port)
                .jobToken(RankThreadsForTests.TOKEN)
                .timeout(Duration.ofSeconds(60))
                .option("heartbeatTimeout", "8s")
                .build();
        ScriptedNativeApi library = new ScriptedNativeApi();
        DeviceCommunicator comm = library.communicator(rank, 3);
        comm.watchJob(bootstrap.rendezvous(), JobRanks.ofJob(3), CommConfig.DEFAULT);
        library.asyncError(Result.REMOTE_ERROR.code()); // the library saw its peer fail before the job said so
        assertThrows(CollectivesException.class, comm.nativeComm()::checkAsyncError);
        try (Communicator child = comm.shrink(1)) {
            return child.toString();
        } finally {
            comm.close();
            assertEquals(List.of(), library.misuse());
        }
    }

    /**
     * Rank 3 dies while the survivors of rank 1's death form their communicator in the library (they shared its id,
     * and the library waits for every survivor to join): the shrink fails at once naming rank 3 and the death it
     * recovers from, not at the library's own timeout, and the communicator being formed is aborted; the survivors
     * then shrink again, leaving out both.
     */
    @Test
    void aSecondDeathWhileTheLibraryFormsTheSurvivorsCommunicatorFailsTheShrinkNamingBoth() throws Exception {
        ScriptedJob job = new ScriptedJob(2, 4, 1);
        DeviceCommunicator comm = job.afterRankOneDied(api);
        String rankThreeGone = "rank 3 at /127.0.0.1:41003 is gone: no heartbeat for 1.5 s while the job ran";
        api.inProgress("commInitRank", ScriptedNativeApi.FOREVER).on("commInitRank", () -> {
            job.dead = new int[] {1, 3};
            job.fail(3, rankThreeGone);
        });

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));

        assertEquals(
                "[REMOTE_ERROR 6] rank 2: ncclCommInitRank failed: the job failed again while the survivors formed "
                        + "their communicator: " + rankThreeGone + "; they were recovering from: " + GONE
                        + "; the communicator being formed was aborted: the survivors may recover again, from every "
                        + "rank that died",
                e.getMessage());
        api.awaitCount("commAbort", 2); // the parent, and the communicator that did not form

        api.inProgress("commInitRank", 0).on("commInitRank", () -> {});
        try (Communicator child = comm.shrink(1, 3)) {
            assertEquals(
                    "nccl rank 1/2 on device 0 (shrunk from rank 2 of 4 without ranks 1, 3, " + REFORMED + ")",
                    child.toString());
        }
        comm.close();
    }

    @Test
    void theLowestSurvivorMakesTheNewIdAndSharesIt() throws Exception {
        ScriptedJob job = new ScriptedJob(0, 3, 1);
        DeviceCommunicator comm = job.afterRankOneDied(api);

        Communicator child = comm.shrink(1);
        assertEquals(0, child.rank());
        assertEquals(1, api.count("getUniqueId"));
        byte[] made = new byte[UniqueId.BYTES];
        for (int i = 0; i < made.length; i++) {
            made[i] = (byte) (i + 1); // the scripted library's id
        }
        assertArrayEquals(made, job.contributions.get(1), "its id is its contribution to the second allgather");
        assertArrayEquals(made, api.lastInit().id());
        comm.close();
    }

    @Test
    void aShrinkAmongTheSurvivorsEndsAtItsFirstBind() throws Exception {
        DeviceCommunicator comm = new ScriptedJob(2, 3, 1).afterRankOneDied(api);

        List<RecordedEvent> events = RecoveryEvents.during(() -> RecoveryEvents.bindOn(comm.shrink(1)));

        assertEquals(1, events.size(), events.toString());
        RecordedEvent event = events.get(0);
        assertEquals("shrink recovered on rank 2: 3 -> 2 ranks, excluded [1], bound", RecoveryEvents.summary(event));
        assertNotEquals(Instant.EPOCH, event.getInstant("heardAt"), "the job watch's abort was heard");
        assertTrue(event.getDuration("heardToCommunicator").compareTo(Duration.ZERO) > 0);
        comm.close();
    }

    @Test
    void aShrinkThatCannotFormACommunicatorEndsFailedSayingWhy() {
        DeviceCommunicator comm = api.communicator(0, 2);
        comm.abort();

        List<RecordedEvent> events =
                RecoveryEvents.during(() -> assertThrows(CollectivesException.class, () -> comm.shrink(1)));

        assertEquals(1, events.size(), events.toString());
        RecordedEvent event = events.get(0);
        assertEquals("shrink failed on rank 0: 2 -> 0 ranks, excluded [1], not bound", RecoveryEvents.summary(event));
        assertTrue(event.getString("failure").contains("the survivors form a new communicator through the job's"));
        comm.close();
    }

    @Test
    void survivorsThatLeaveOutOtherRanksThanTheDeadAreRefused() throws Exception {
        DeviceCommunicator comm = new ScriptedJob(0, 4, 1, 3).afterRankOneDied(api);

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));
        assertEquals(
                "rank 0: shrink: the survivors do not agree on the ranks to leave out: this rank excludes [1], but "
                        + "rank 3 is gone too (rank 3 is gone); every survivor calls shrink with the same ranks, all "
                        + "of those that died",
                e.getMessage());
        assertEquals(1, api.count("commInitRank"), "no communicator was formed but the parent");
        comm.close();
    }

    @Test
    void aShrinkWhoseRendezvousCannotGatherTheSurvivorsSaysWhy() throws Exception {
        ScriptedJob job = new ScriptedJob(2, 3, 1);
        job.refusal = "the job ended: rank 0 at tcp://127.0.0.1:41000 is gone: the connection ended while the job ran";
        DeviceCommunicator comm = job.afterRankOneDied(api);

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));
        assertEquals(
                "rank 2: shrink: the communicator was aborted when the job failed (" + GONE + "); the "
                        + "survivors cannot form a new communicator through the job's "
                        + "rendezvous at tcp://127.0.0.1:41000: " + job.refusal,
                e.getMessage());
        assertEquals(List.of("resume"), job.operations);
        comm.close();
    }

    @Test
    void anAbortedCommunicatorWithoutAJobCannotFormOneAndSaysSo() {
        DeviceCommunicator comm = api.communicator(0, 2);
        comm.abort();

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));
        assertEquals(
                "rank 0: shrink: the communicator was aborted; the survivors form a new "
                        + "communicator through the job's tcp:// rendezvous, and this communicator has none (its "
                        + "ranks are threads of one process, or its job met through a file rendezvous)",
                e.getMessage());
        comm.close();
    }

    @Test
    void whileEveryRankIsAliveShrinkRevokesThenShrinksThroughTheLibrary() {
        api.children(1, 0);
        DeviceCommunicator comm = api.communicator(0, 2);
        ScriptedJob job = new ScriptedJob(0, 2);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);

        List<LogRecord> records = new ArrayList<>();
        Communicator child = captureRecovery(records, () -> comm.shrink(1));
        List<String> calls = api.calls();
        assertEquals(calls.indexOf("commRevoke") + 1, calls.indexOf("commShrink"), calls.toString());
        assertEquals(0, api.shrinkFlags());
        assertEquals(List.of(), job.operations, "the rendezvous is not needed");
        String described = "nccl rank 0/1 on device 0 (shrunk from rank 0 of 2 without rank 1, by ncclCommShrink "
                + "after ncclCommRevoke)";
        assertEquals(described, child.toString());
        assertEquals("shrink: " + described, records.get(0).getMessage());

        CollectivesException refused = assertThrows(CollectivesException.class, comm::createStream);
        assertEquals("rank 0: communicator is revoked", refused.getMessage());
        comm.close();
        assertEquals(1, api.count("commFinalize"), "the child; a revoked communicator is not finalized");
        assertEquals(2, api.count("commDestroy"));
    }

    @Test
    void aLibraryWithoutRevokeShrinksTheOpenCommunicatorAlone() {
        api.lacking("CommRevoke").children(1, 0);
        DeviceCommunicator comm = api.communicator(0, 2);

        Communicator child = comm.shrink(1);
        assertEquals(0, api.count("commRevoke"));
        assertTrue(child.toString().endsWith("without rank 1, by ncclCommShrink)"), child.toString());
        comm.close();
        assertEquals(2, api.count("commFinalize"));
    }

    @Test
    void theStreamOfTheParentWaitsForTheChildsWorkAfterTheRecovery() throws Exception {
        DeviceCommunicator comm = api.communicator(2, 3);
        ScriptedJob job = new ScriptedJob(2, 3, 1);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);
        Stream stream = comm.createStream();
        DeviceBuffer grads = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        job.fail(1, GONE);
        api.awaitCount("commAbort", 1);
        Communicator child = comm.shrink(1);
        AtomicInteger queries = new AtomicInteger();
        api.streamsNeverFinish().on("streamQuery", () -> {
            if (queries.incrementAndGet() > 1) {
                api.streamsFinish();
            }
        });

        child.allReduce(grads, grads, 256, DataType.FLOAT32, ReduceOp.SUM, stream);
        stream.synchronize(); // the child's asynchronous error is asked, not the aborted parent's
        assertEquals(1, api.count("allReduce"));
        grads.close();
        stream.close();
        comm.close();
    }

    @Test
    void theSurvivorsFormTheNewCommunicatorWhileTheOldOnesAbortStillRunsAndFreeWhatItUsedOnlyAfter() throws Exception {
        DeviceCommunicator comm = api.communicator(2, 3);
        ScriptedJob job = new ScriptedJob(2, 3, 1);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        CountDownLatch aborting = new CountDownLatch(1);
        CountDownLatch abortMayReturn = new CountDownLatch(1);
        api.clockStops(); // the abort's deadline does not pass: only its return settles it
        api.on("commAbort", () -> {
            aborting.countDown();
            awaitUninterruptibly(abortMayReturn); // as NCCL's does until its proxy threads saw it
        });
        job.fail(1, GONE);
        aborting.await();

        Communicator child = comm.shrink(1);
        assertEquals(2, child.size());
        assertEquals(0, api.count("commAbort"), "the abort has not returned: " + api.calls());
        Thread freeing = new Thread(buffer::close);
        freeing.start();
        abortMayReturn.countDown();
        freeing.join();

        List<String> calls = api.calls();
        assertTrue(calls.indexOf("commInitRank") < calls.indexOf("commAbort"), calls.toString());
        assertTrue(calls.indexOf("commAbort") < calls.indexOf("memFree"), calls.toString());
        child.close();
        comm.close();
    }

    // ---- release after a failure ---------------------------------------------------------------------------------

    @Test
    void aDeathEndsTheWaitForAGraphInFlightAtOnceAndNothingIsFreedBeforeItsStreamIsIdle() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        ScriptedJob job = new ScriptedJob(0, 2);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        RegistrationHandle registration = comm.register(buffer);
        stream.beginCapture();
        comm.allReduce(buffer, buffer, 256, DataType.FLOAT32, ReduceOp.SUM, stream);
        Graph graph = stream.endCapture();
        GraphExec exec = graph.instantiate();
        // as NCCL's abort does, it returns only once no graph holds the communicator's calls
        CountDownLatch graphsDestroyed = new CountDownLatch(1);
        api.on("commAbort", () -> awaitUninterruptibly(graphsDestroyed));
        api.on("graphDestroy", graphsDestroyed::countDown);
        api.clockStops(); // no wait times out: only the death ends it
        api.streamsNeverFinish().streamsOutliveAbort(); // the launched graph waits for the dead rank
        exec.launch(stream);

        job.fail(1, GONE);
        CollectivesException failure = assertThrows(CollectivesException.class, stream::synchronize);
        assertTrue(failure.getMessage().contains(GONE), failure.getMessage());
        int queried = api.count("streamQuery");
        Thread closer = new Thread(() -> {
            exec.close(); // as a pipeline's close does: graphs, then registrations, then memory
            graph.close();
            registration.close();
            buffer.close();
        });
        closer.start();
        api.awaitCount("commAbort", 1); // returned, once the graphs were destroyed without waiting for it
        api.awaitCount("streamQuery", queried + 1); // the free waits for the stream
        assertEquals(0, api.count("memFree"), "nothing is freed while the stream runs");
        api.streamsFinish(); // the graph's kernels saw the abort and exited
        closer.join();

        List<String> calls = api.calls();
        assertTrue(calls.indexOf("graphExecDestroy") < calls.indexOf("commAbort"), calls.toString());
        assertEquals(calls.size() - 1, calls.indexOf("memFree"), "freed last, once the stream was idle: " + calls);
        stream.close();
        comm.close();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Communicator captureRecovery(List<LogRecord> records, java.util.function.Supplier<Communicator> s) {
        Communicator[] child = new Communicator[1];
        records.addAll(LogCapture.capture("dev.collectives.recovery", Level.ALL, () -> child[0] = s.get()));
        return child[0];
    }

    /**
     * A job as rank {@code rank} of {@code size} sees it through its rendezvous, once {@code dead} died: the test
     * says when the watch hears of it; the survivors meet again unless {@link #refusal} says why not; in each
     * allgather of survivors every other survivor contributes what this rank does, but the lowest survivor, whose
     * unique id is {@link #LOWEST_SURVIVORS_ID}, in the second.
     */
    private static final class ScriptedJob extends ScriptedJobBase {
        static final byte[] LOWEST_SURVIVORS_ID = filled(9);

        final List<byte[]> contributions = new CopyOnWriteArrayList<>();
        volatile String refusal;
        /** The ranks that died, in order. */
        volatile int[] dead;

        ScriptedJob(int rank, int size, int... dead) {
            super(rank, size);
            this.dead = dead;
        }

        private static byte[] filled(int value) {
            byte[] id = new byte[UniqueId.BYTES];
            Arrays.fill(id, (byte) value);
            return id;
        }

        @Override
        public Optional<String> resumeAmongSurvivors() {
            operations.add("resume");
            return Optional.ofNullable(refusal);
        }

        @Override
        public Survivors allGatherOfSurvivors(byte[] value) {
            operations.add("allgather of survivors");
            contributions.add(value.clone());
            boolean idRound = contributions.size() == 2;
            IntPredicate gone = r -> Arrays.binarySearch(dead, r) >= 0;
            int lowest =
                    IntStream.range(0, size).filter(gone.negate()).findFirst().orElseThrow();
            return survivors(gone, r -> r != rank && idRound && r == lowest ? LOWEST_SURVIVORS_ID : value);
        }
    }
}
