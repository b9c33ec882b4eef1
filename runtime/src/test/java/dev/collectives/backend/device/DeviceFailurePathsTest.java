package dev.collectives.backend.device;

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
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LogCapture;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.spi.JobRanks;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every failure path of the device backend, on a scripted native library ({@link ScriptedNativeApi}): what the
 * user sees (the result's tag and the words), that later calls fail at once without reaching the library, and that
 * nothing is freed twice or on a handle the library already freed.
 */
class DeviceFailurePathsTest {
    private static final String GONE = "rank 1 at /127.0.0.1:41000 is gone: its connection ended while the job ran";
    private static final String SILENT = "ranks [1] did not arrive at the collective that ranks [0] waited in (each "
            + "waited 2 s for stream synchronize): they never called it, or are stuck before it";
    private static final String POISONED_TAIL = ", after nccl rank 0/2 on device 0 was aborted: the device context of"
            + " this process may be unusable from now on; restart the process before using the device again";

    private final ScriptedNativeApi api = new ScriptedNativeApi();

    @AfterEach
    void nothingWasFreedTwiceOrUsedAfterItWasFreed() {
        assertEquals(List.of(), api.misuse());
    }

    private static void allReduce(Communicator comm, DeviceBuffer buffer, Stream stream) {
        comm.allReduce(buffer, buffer, 256, DataType.FLOAT32, ReduceOp.SUM, stream);
    }

    /** A later call fails at once with {@code words}, reaching no collective of the library. */
    private void assertRefusedAtOnce(
            Communicator comm, DeviceBuffer buffer, Stream stream, Result result, String words) {
        int collectives = api.count("allReduce");
        CollectivesException later = assertThrows(CollectivesException.class, () -> allReduce(comm, buffer, stream));
        assertEquals(result, later.result());
        assertEquals(words, later.getMessage());
        assertEquals(collectives, api.count("allReduce"));
    }

    /** Closes what the test made over an aborted communicator: the abort freed it, once, and nothing finalizes it. */
    private void closeAborted(DeviceCommunicator comm, Stream stream, DeviceBuffer buffer) {
        buffer.close();
        stream.close();
        comm.close();
        assertEquals(1, api.count("commAbort"));
        assertEquals(0, api.count("commFinalize"), "the abort freed the communicator");
        assertEquals(0, api.count("commDestroy"));
    }

    @Test
    void anAsyncErrorInTheMiddleOfAStepAbortsAndSaysSo() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.on("allReduce", () -> api.asyncError(Result.REMOTE_ERROR.code())).streamsNeverFinish();
        allReduce(comm, buffer, stream); // the step's first op: its peer dies under it
        allReduce(comm, buffer, stream); // the second is enqueued before anything is known

        CollectivesException e = assertThrows(CollectivesException.class, stream::synchronize);
        assertEquals(Result.REMOTE_ERROR, e.result());
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: ncclCommGetAsyncError (an enqueued operation) failed: remote process "
                        + "exited or there was a network error; the communicator was aborted",
                e.getMessage());
        api.awaitCount("commAbort", 1);
        assertRefusedAtOnce(comm, buffer, stream, Result.INVALID_USAGE, "rank 0: communicator is aborted");

        closeAborted(comm, stream, buffer);
    }

    @Test
    void aJobFailureAbortsBehindAndEveryLaterCallNamesIt() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        ScriptedRendezvous job = new ScriptedRendezvous(null);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.streamsNeverFinish().on("streamQuery", () -> job.fail(1, GONE));
        allReduce(comm, buffer, stream);

        CollectivesException e = assertThrows(CollectivesException.class, stream::synchronize);
        String named = "[REMOTE_ERROR 6] rank 0: the communicator failed: the job failed: " + GONE
                + "; the communicator was aborted";
        assertEquals(named, e.getMessage());
        api.awaitCount("commAbort", 1);
        assertRefusedAtOnce(comm, buffer, stream, Result.REMOTE_ERROR, named);

        closeAborted(comm, stream, buffer);
        assertTrue(job.closed, "the job is left once the communicator is gone");
    }

    @Test
    void aSynchronizeThatTimesOutNamesTheSilentRankFromTheJobsVerdict() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        ScriptedRendezvous job = new ScriptedRendezvous(SILENT);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.streamsNeverFinish();
        allReduce(comm, buffer, stream);

        CollectivesException e = assertThrows(CollectivesException.class, stream::synchronize);
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: stream synchronize failed: no completion within 2 s; the job failed: "
                        + SILENT + "; the communicator was aborted",
                e.getMessage());
        // what rank 0 is told carries where this rank stood, from its flight recorder
        assertEquals(
                List.of("waited 2 s for stream synchronize; last enqueued #1 allReduce(256 x FLOAT32) (enqueued), "
                        + "last completed none"),
                job.stalls);
        api.awaitCount("commAbort", 1);
        assertRefusedAtOnce(
                comm,
                buffer,
                stream,
                Result.REMOTE_ERROR,
                "[REMOTE_ERROR 6] rank 0: the communicator " + "failed: the job failed: " + SILENT
                        + "; the communicator was aborted");

        closeAborted(comm, stream, buffer);
    }

    @Test
    void aSynchronizeThatTimesOutWithoutAWatchedJobAborts() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        api.streamsNeverFinish();

        CollectivesException e = assertThrows(CollectivesException.class, stream::synchronize);
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: stream synchronize failed: no completion within 2 s; the communicator "
                        + "was aborted",
                e.getMessage());
        api.awaitCount("commAbort", 1);
        stream.close();
        comm.close();
        assertEquals(1, api.count("commAbort"));
    }

    @Test
    void aFinalizeThatFailsAbortsTheCommunicatorOnceAndThrows() {
        DeviceCommunicator comm = api.communicator(0, 2);
        api.failing("commFinalize", Result.REMOTE_ERROR.code());

        CollectivesException e = assertThrows(CollectivesException.class, comm::close);
        assertEquals(
                "[REMOTE_ERROR 6] rank 0: ncclCommFinalize failed: remote process exited or there was a network "
                        + "error",
                e.getMessage());
        assertEquals(1, api.count("commAbort"), "aborted, so that its resources are freed anyway");
        assertEquals(0, api.count("commDestroy"));

        comm.abort();
        comm.close();
        assertEquals(1, api.count("commAbort"), "a closed communicator is not aborted again");
        CollectivesException later = assertThrows(CollectivesException.class, comm::createStream);
        assertEquals("rank 0: communicator is closed", later.getMessage());
    }

    @Test
    void anAbortDuringABlockingFinalizeStartsOnceTheFinalizeReturnedAndFreesNothingTwice() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        Thread aborter = new Thread(comm::abort, "aborter");
        api.on("commFinalize", () -> {
            aborter.start();
            awaitAbortHeldUpByACall(comm);
        });

        comm.close();
        aborter.join();
        assertEquals(List.of("commFinalize", "commAbort"), endCalls());
        assertEquals(0, api.count("commDestroy"), "the abort freed the communicator");
    }

    @Test
    void anAbortStartsOnlyOnceTheCollectiveUnderWayOnTheHandleReturned() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        Thread aborter = new Thread(comm::abort, "aborter");
        api.on("allReduce", () -> {
            aborter.start();
            awaitAbortHeldUpByACall(comm);
        });

        allReduce(comm, buffer, stream);
        aborter.join();
        assertEquals(
                List.of("allReduce", "commAbort"),
                api.calls().stream()
                        .filter(call -> call.equals("allReduce") || call.equals("commAbort"))
                        .toList());
        assertRefusedAtOnce(comm, buffer, stream, Result.INVALID_USAGE, "rank 0: communicator is aborted");
        closeAborted(comm, stream, buffer);
    }

    /**
     * Inside a native call on {@code comm}'s handle: returns once an abort of it was marked and its library call waits
     * for this one to return, or (were the two not exclusive) once the library's abort ran.
     */
    private void awaitAbortHeldUpByACall(DeviceCommunicator comm) {
        while (!comm.nativeComm().abortAwaitsCalls() && api.count("commAbort") == 0) {
            Thread.onSpinWait();
        }
    }

    /** The calls that end the communicator, in order. */
    private List<String> endCalls() {
        return api.calls().stream()
                .filter(call -> call.equals("commFinalize") || call.equals("commAbort") || call.equals("commDestroy"))
                .toList();
    }

    @Test
    void freesAfterAnAbortThatThePoisonedContextRefusesAreOneWarningAndNoDeregistration() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        DeviceBuffer windowed = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        RegistrationHandle registration = comm.register(buffer);
        RegisteredWindow window = comm.registerWindow(windowed, false);
        stream.beginCapture();
        allReduce(comm, buffer, stream);
        Graph graph = stream.endCapture();
        GraphExec exec = graph.instantiate();

        comm.abort();
        api.awaitCount("commAbort", 1);
        for (String free : List.of("graphExecDestroy", "graphDestroy", "streamDestroy")) {
            api.failing(free, ScriptedNativeApi.ILLEGAL_ADDRESS);
        }
        api.failing("memFree", Result.UNHANDLED_DEVICE_ERROR.code());
        List<LogRecord> records = LogCapture.capture("dev.collectives.device", Level.ALL, () -> {
            exec.close();
            graph.close();
            window.close();
            registration.close();
            buffer.close();
            windowed.close();
            stream.close();
            comm.close();
        });

        assertEquals(1, records.size(), records.toString());
        assertEquals(Level.WARNING, records.get(0).getLevel());
        assertEquals(
                "[UNHANDLED_DEVICE_ERROR 1] rank 0: cudaGraphExecDestroy failed: error 700: an illegal memory "
                        + "access was encountered" + POISONED_TAIL,
                records.get(0).getMessage());
        assertEquals(0, api.count("commDeregister"), "the abort freed the communicator with its registrations");
        assertEquals(0, api.count("windowDeregister"), "and with its windows");
        assertEquals(1, api.count("commAbort"));
    }

    @Test
    void aFreeThatFailsOnAnOpenCommunicatorThrows() {
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        api.failing("streamDestroy", ScriptedNativeApi.ILLEGAL_ADDRESS);

        CollectivesException e = assertThrows(CollectivesException.class, stream::close);
        assertEquals(
                "[UNHANDLED_DEVICE_ERROR 1] rank 0: cudaStreamDestroy failed: error 700: an illegal memory "
                        + "access was encountered",
                e.getMessage());
        comm.close();
    }

    @Test
    void aUserAbortTellsTheJobAndLaterCallsFailAtOnce() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        ScriptedRendezvous job = new ScriptedRendezvous(null);
        comm.watchJob(job, JobRanks.ofJob(job.size()), CommConfig.DEFAULT);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);

        comm.abort();
        comm.abort();
        assertEquals(List.of("abort: rank 0 called abort()"), job.operations);
        assertEquals(1, api.count("commAbort"));
        assertRefusedAtOnce(comm, buffer, stream, Result.INVALID_USAGE, "rank 0: communicator is aborted");
        closeAborted(comm, stream, buffer);
        assertTrue(job.closed);
    }

    // ---- shrink ---------------------------------------------------------------------------------------------------

    @Test
    void aShrinkTheLibraryLacksIsRefusedNamingTheSymbolAndVersion() {
        api.lacking("CommShrink");
        DeviceCommunicator comm = api.communicator(0, 2);

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));
        assertEquals("rank 0: ncclCommShrink is not available in this library version (NCCL 2.28.9)", e.getMessage());
        comm.close();
    }

    @Test
    void aShrinkTheLibraryRefusesThrowsItsResultAfterAPeerFailedItAskedForAnAbortingShrink() {
        DeviceCommunicator comm = api.communicator(0, 2);
        api.asyncError(Result.REMOTE_ERROR.code()).failing("commShrink", Result.INVALID_USAGE.code());

        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));
        assertEquals("[INVALID_USAGE 5] rank 0: ncclCommShrink failed: invalid usage", e.getMessage());
        assertEquals(1, api.shrinkFlags(), "NCCL_SHRINK_ABORT, as a peer failed");
        comm.abort();
        comm.close();
    }

    @Test
    void aShrunkChildClosesBeforeItsParent() {
        api.children(1, 0);
        DeviceCommunicator comm = api.communicator(0, 2);
        Communicator child = comm.shrink(1);
        assertEquals(0, api.shrinkFlags());
        assertEquals(1, child.size());

        comm.close();
        assertEquals(1, api.count("commFinalize"), "the child; its parent was revoked, and is destroyed only");
        assertEquals(2, api.count("commDestroy"));
        child.close();
        assertEquals(2, api.count("commDestroy"), "closed once");
    }

    // ---- a library without optional symbols ---------------------------------------------------------------------

    @Test
    void aLibraryWithoutWindowsSaysSoAndHasNoWindowCapability() {
        api.lacking("CommWindowRegister");
        DeviceCommunicator comm = api.communicator(0, 2);
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);

        assertFalse(comm.capabilities().symmetricWindows());
        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.registerWindow(buffer, true));
        assertEquals("rank 0: nccl 2.28.9 lacks ncclCommWindowRegister", e.getMessage());
        buffer.close();
        comm.close();
    }

    @Test
    void aLibraryWithoutAllToAllGetsTheGroupOfSendsAndReceives() {
        api.lacking("AlltoAll");
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);

        comm.allToAll(send, recv, 256, DataType.FLOAT32, stream);
        List<String> calls = api.calls();
        assertEquals(
                List.of("groupStart", "send", "recv", "send", "recv", "groupEnd"),
                calls.subList(calls.indexOf("groupStart"), calls.indexOf("groupEnd") + 1));
        assertEquals(0, api.count("allToAll"));
        send.close();
        recv.close();
        stream.close();
        comm.close();
    }

    @Test
    void aRuntimeWithoutEventsRefusesRecordNamingTheSymbol() {
        api.lacking("EventQuery");
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();

        CollectivesException e = assertThrows(CollectivesException.class, stream::record);
        assertEquals("rank 0: Stream.record() needs cudaEventQuery, which nccl's libraries lack", e.getMessage());
        assertEquals(0, api.count("eventCreate"));
        stream.close();
        comm.close();
    }

    @Test
    void aRuntimeWithoutPinnedHostMemoryHasNoStaging() {
        api.lacking("MallocHost");
        DeviceCommunicator comm = api.communicator(0, 2);
        assertTrue(comm.allocateStaging(64).isEmpty());
        comm.close();
    }

    @Test
    void aLibraryWithoutARequiredSymbolIsUnavailableNamingIt() {
        api.lacking("CommInitRank");
        Object opened = NativeLibrary.tryOpen(Dialect.NCCL, api);
        assertTrue(
                opened instanceof String why && why.contains("lacks the symbol ncclCommInitRank"),
                String.valueOf(opened));
    }

    /** A job's rendezvous that watches, as rank 0 of 2: the test says when the job fails, and what a stall's verdict is. */
    private static final class ScriptedRendezvous extends ScriptedJobBase {
        final List<String> stalls = new CopyOnWriteArrayList<>();
        private final String verdict;

        /** @param verdict what rank 0 answers a stall with; null for none */
        ScriptedRendezvous(String verdict) {
            super(0, 2);
            this.verdict = verdict;
        }

        @Override
        public void stalled(String where) {
            stalls.add(where);
            if (verdict != null) {
                fail(Cause.of(Cause.Kind.NEVER_ARRIVED, verdict, 1));
            }
        }
    }
}
