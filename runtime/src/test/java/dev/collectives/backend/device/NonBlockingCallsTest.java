package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.UniqueId;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Communicators are non-blocking: every call the library answers "in progress" is polled until done, to a deadline,
 * and an abort ends the wait at once. On the scripted library ({@link ScriptedNativeApi#inProgress}), whose clock
 * ticks a second at each reading unless it is stopped.
 */
class NonBlockingCallsTest {
    private final ScriptedNativeApi api = new ScriptedNativeApi();

    @AfterEach
    void nothingWasFreedTwiceOrUsedAfterItWasFreed() {
        assertEquals(List.of(), api.misuse());
    }

    @Test
    void communicatorsAreNonBlockingAndAnInitInProgressIsPolledUntilDone() {
        api.inProgress("commInitRank", 3);

        DeviceCommunicator comm = api.communicator(0, 2);

        assertEquals(0, api.lastInit().blocking());
        assertEquals(4, api.count("commAsyncError"), "three polls in progress, the fourth done");
        comm.close();
        assertEquals(0, api.count("commAbort"));
        assertEquals(1, api.count("commDestroy"));
    }

    @Test
    void anInitWhosePeersNeverComeFailsAtTheDeadlineNamingTheRankTheSizeAndTheTimeoutAndIsAborted() throws Exception {
        api.inProgress("commInitRank", ScriptedNativeApi.FOREVER);

        CollectivesException e = assertThrows(CollectivesException.class, () -> api.communicator(1, 3));

        assertEquals(Result.IN_PROGRESS, e.result());
        assertEquals(
                "[IN_PROGRESS 7] rank 1: ncclCommInitRankConfig failed: rank 1 of 3 waited 10 s for every rank to "
                        + "join the communicator, and not all did; the communicator was aborted",
                e.getMessage());
        api.awaitCount("commAbort", 1);
    }

    @Test
    void aJobFromAUniqueIdWhosePeersNeverComeFailsWithinTheBootstrapsTimeout() throws Exception {
        api.inProgress("commInitRank", ScriptedNativeApi.FOREVER);
        UniqueId id = UniqueId.of(new byte[UniqueId.BYTES]);
        Bootstrap bootstrap = Bootstrap.builder()
                .rank(0)
                .size(2)
                .uniqueId(id)
                .timeout(Duration.ofSeconds(1))
                .build();

        CollectivesException e = assertThrows(
                CollectivesException.class,
                () -> ForeignCommunicators.join(api.library(), bootstrap, id, CommConfig.DEFAULT));

        assertEquals(
                "[IN_PROGRESS 7] rank 0: ncclCommInitRankConfig failed: rank 0 of 2 waited 1 s for every rank to "
                        + "join the communicator, and not all did; the communicator was aborted",
                e.getMessage());
        api.awaitCount("commAbort", 1);
    }

    @Test
    void aBlockingConfigIsPassedAsItIs() {
        CommConfig blocking = CommConfig.DEFAULT.withBlocking(true);
        long handle = blocking.initRank(api.library(), 2, new byte[128], 0, api.waits(), Duration.ofSeconds(10));

        assertEquals(1, api.lastInit().blocking());
        assertEquals(0, api.count("commAsyncError"), "nothing to poll");
        api.commAbort(0, handle);
    }

    @Test
    void aCollectiveInProgressIsPolledBeforeTheNextCall() {
        DeviceCommunicator comm = api.communicator(0, 2);
        try (Stream stream = comm.createStream();
                DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 256)) {
            api.inProgress("allReduce", 2);

            comm.allReduce(buffer, buffer, 256, DataType.FLOAT32, ReduceOp.SUM, stream);

            assertEquals(List.of("allReduce", "commAsyncError", "commAsyncError", "commAsyncError"), tail(4));
        }
        comm.close();
    }

    @Test
    void aGroupEndInProgressWaitsForEveryCommunicatorThatEnqueuedInTheGroup() {
        DeviceCommunicator first = api.communicator(0, 2);
        DeviceCommunicator second = api.communicator(1, 2);
        long firstHandle = first.nativeComm().handle();
        long secondHandle = second.nativeComm().handle();
        try (Stream a = first.createStream();
                Stream b = second.createStream();
                DeviceBuffer x = first.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 256);
                DeviceBuffer y = second.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 256)) {
            api.inProgress("groupEnd", 2);
            int pollsBefore = api.polled().size();

            first.groupStart();
            first.allReduce(x, x, 256, DataType.FLOAT32, ReduceOp.SUM, a);
            second.allReduce(y, y, 256, DataType.FLOAT32, ReduceOp.SUM, b);
            first.groupEnd();

            List<Long> polled = api.polled();
            assertEquals(
                    List.of(firstHandle, firstHandle, firstHandle, secondHandle),
                    polled.subList(pollsBefore, polled.size()),
                    "the first until it is done, then the second");
        }
        first.close();
        second.close();
    }

    /**
     * As NCCL does, the scripted library stores a child (split, shrink) or a window only when the call completes,
     * which the parent's state says, into a slot that must still be there ({@link #nothingWasFreedTwiceOrUsedAfterItWasFreed}).
     */
    @Test
    void aSplitInProgressWaitsOnTheParentUntilTheLibraryStoredTheChild() {
        DeviceCommunicator comm = api.communicator(0, 2);
        long parent = comm.nativeComm().handle();
        api.inProgress("commSplit", 2);
        int pollsBefore = api.polled().size();

        DeviceCommunicator child = (DeviceCommunicator) comm.split(0, 0).orElseThrow();

        List<Long> polled = api.polled();
        assertEquals(List.of(parent, parent, parent), polled.subList(pollsBefore, polled.size()));
        assertNotEquals(parent, child.nativeComm().handle());
        child.close();
        comm.close();
        assertEquals(0, api.count("commAbort"));
    }

    @Test
    void aShrinkInProgressWaitsOnTheParentUntilTheLibraryStoredTheChild() {
        DeviceCommunicator comm = api.communicator(0, 3);
        long parent = comm.nativeComm().handle();
        api.inProgress("commShrink", 1);

        Communicator child = comm.shrink(2);

        List<String> calls = api.calls();
        int shrink = calls.lastIndexOf("commShrink");
        assertEquals(List.of("commShrink", "commAsyncError", "commAsyncError"), calls.subList(shrink, shrink + 3));
        assertNotEquals(parent, ((DeviceCommunicator) child).nativeComm().handle()); // stored at the second poll
        child.close();
        comm.close();
    }

    @Test
    void aWindowRegistrationInProgressTakesTheWindowTheLibraryStoresWhenItCompletes() {
        DeviceCommunicator comm = api.communicator(0, 2);
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.inProgress("windowRegister", 1);

        RegisteredWindow window = comm.registerWindow(buffer, false);

        assertEquals(List.of("windowRegister", "commAsyncError", "commAsyncError"), tail(3));
        window.close();
        buffer.close();
        comm.close();
    }

    @Test
    void anInitGivenUpLeavesItsSlotToTheLibraryWhichStoresIntoItAtTheAbort() throws Exception {
        api.inProgress("commInitRank", ScriptedNativeApi.FOREVER);

        assertThrows(CollectivesException.class, () -> api.communicator(0, 2));

        api.awaitCount("commAbort", 1); // the scripted library stores the communicator again then: no misuse
    }

    @Test
    void aRegistrationAndItsEndInProgressArePolledUntilDone() {
        DeviceCommunicator comm = api.communicator(0, 2);
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.inProgress("commRegister", 1).inProgress("commDeregister", 1);

        RegistrationHandle registration = comm.register(buffer);
        assertEquals(List.of("commRegister", "commAsyncError", "commAsyncError"), tail(3));
        registration.close();
        assertEquals(List.of("commDeregister", "commAsyncError", "commAsyncError"), tail(3));

        buffer.close();
        comm.close();
    }

    @Test
    void anAbortEndsAFinalizeThatWaitsOnADeadPeer() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        CountDownLatch waiting = new CountDownLatch(1);
        api.clockStops().inProgress("commFinalize", ScriptedNativeApi.FOREVER).on("commAsyncError", waiting::countDown);

        CompletableFuture<CollectivesException> closing =
                CompletableFuture.supplyAsync(() -> assertThrows(CollectivesException.class, comm::close));
        waiting.await();
        comm.abort();

        assertEquals(
                "rank 0: ncclCommFinalize did not complete: the communicator was aborted while it waited",
                closing.join().getMessage());
        assertEquals(1, api.count("commAbort"));
        assertEquals(0, api.count("commDestroy"), "the abort freed it");
        comm.close(); // closed already: nothing more
        assertEquals(1, api.count("commFinalize"));
    }

    @Test
    void anAbortEndsAStreamWaitAtOnce() throws Exception {
        DeviceCommunicator comm = api.communicator(0, 2);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 256);
        comm.allReduce(buffer, buffer, 256, DataType.FLOAT32, ReduceOp.SUM, stream);
        CountDownLatch waiting = new CountDownLatch(1);
        api.clockStops().streamsNeverFinish().on("streamQuery", waiting::countDown);

        CompletableFuture<CollectivesException> synchronizing =
                CompletableFuture.supplyAsync(() -> assertThrows(CollectivesException.class, stream::synchronize));
        waiting.await();
        comm.abort();

        assertEquals("rank 0: communicator is aborted", synchronizing.join().getMessage());
        buffer.close();
        stream.close();
        comm.close();
        assertEquals(1, api.count("commAbort"));
    }

    /** The last {@code n} calls to the library. */
    private List<String> tail(int n) {
        List<String> calls = api.calls();
        return calls.subList(calls.size() - n, calls.size());
    }
}
