package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Peers;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.UniqueId;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Communicators formed with other libraries, on a scripted library: a unique id for peers, a rank joined with a
 * unique id made elsewhere, and a handle another library made, which this library never finalizes, destroys or
 * aborts.
 */
class ForeignCommunicatorsTest {
    private final ScriptedNativeApi api = new ScriptedNativeApi();
    private final NativeLibrary library = api.library();

    @AfterEach
    void noHandleWasMisused() {
        assertEquals(java.util.List.of(), api.misuse());
    }

    @Test
    void aUniqueIdForPeersIsTheLibrarysBytes() {
        UniqueId id = ForeignCommunicators.uniqueId(library);

        assertEquals(1, api.count("getUniqueId"));
        assertEquals(1, id.bytes()[0]);
        assertEquals((byte) UniqueId.BYTES, id.bytes()[UniqueId.BYTES - 1]);
        assertTrue(id.hex().startsWith("0102030405"), id.hex());
    }

    @Test
    void aRankJoinsWithAUniqueIdMadeElsewhereWithoutARendezvousAndOwnsItsCommunicator() {
        UniqueId id = UniqueId.of(new byte[UniqueId.BYTES]);
        Bootstrap bootstrap =
                Bootstrap.builder().rank(1).size(4).localSize(2).uniqueId(id).build();

        JoinedRank rank = ForeignCommunicators.join(library, bootstrap, id, CommConfig.DEFAULT);

        assertEquals(1, rank.rank());
        assertEquals(4, rank.size());
        assertEquals(2, rank.comm().topology().ranksPerNode());
        assertArrayEquals(id.bytes(), api.lastInit().id());
        assertEquals(0, api.count("getUniqueId"), "the id came from elsewhere");
        String why = rank.comm().crossRankChecksOff().orElseThrow();
        assertTrue(why.contains("unique id made elsewhere") && why.contains("COLLECTIVES_PEERS=collectives"), why);
        rank.close();
        assertEquals(1, api.count("commFinalize"));
        assertEquals(1, api.count("commDestroy"));
    }

    @Test
    void whereEveryRankRunsThisLibraryTheChecksAcrossRanksRun() {
        UniqueId id = UniqueId.of(new byte[UniqueId.BYTES]);
        Bootstrap bootstrap = Bootstrap.builder()
                .rank(0)
                .size(2)
                .uniqueId(id)
                .peers(Peers.COLLECTIVES)
                .build();

        try (JoinedRank rank = ForeignCommunicators.join(library, bootstrap, id, CommConfig.DEFAULT)) {
            assertEquals(Optional.empty(), rank.comm().crossRankChecksOff());
        }
        long handle = api.madeElsewhere(2, 0);
        try (DeviceCommunicator wrapped = ForeignCommunicators.wrap(library, handle, Peers.COLLECTIVES)) {
            assertEquals(Optional.empty(), wrapped.crossRankChecksOff());
        }
    }

    @Test
    void aFailedInitWithAPeerSaysTheLikelyCause() {
        api.failing("commInitRank", Result.INVALID_USAGE.code());
        UniqueId id = UniqueId.of(new byte[UniqueId.BYTES]);
        Bootstrap bootstrap = Bootstrap.builder().rank(1).size(2).uniqueId(id).build();

        CollectivesException e = assertThrows(
                CollectivesException.class,
                () -> ForeignCommunicators.join(library, bootstrap, id, CommConfig.DEFAULT));

        assertEquals(Result.INVALID_USAGE, e.result());
        assertEquals(
                "[INVALID_USAGE 5] rank 1: ncclCommInitRankConfig with a unique id made elsewhere failed: invalid "
                        + "usage. With peers of another library, the likely cause is a different NCCL on some side "
                        + "(this process loaded NCCL 2.28.9 from libnccl.so.2; point COLLECTIVES_NCCL_CCL_LIBRARY at "
                        + "the library the other side loads, e.g. the nvidia-nccl-cu12 package's libnccl.so.2 in its "
                        + "Python environment), or a unique id that another build of the library made",
                e.getMessage());
    }

    @Test
    void aWrappedHandleGivesItsRankAndSizeFromTheLibraryAndClosingNeverDestroysIt() {
        long handle = api.madeElsewhere(4, 3);

        DeviceCommunicator comm = ForeignCommunicators.wrap(library, handle, Peers.FOREIGN);

        assertEquals(3, comm.rank());
        assertEquals(4, comm.size());
        assertEquals(0, comm.device());
        assertTrue(comm.crossRankChecksOff().orElseThrow().contains("wraps a handle another library made"));
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        comm.allReduce(buffer, buffer, 1024, DataType.FLOAT32, ReduceOp.SUM, stream);
        stream.synchronize();
        assertEquals(1, api.count("allReduce"));
        buffer.close();
        stream.close();
        comm.close();
        comm.close();

        assertEquals(0, api.count("commFinalize"));
        assertEquals(0, api.count("commDestroy"));
        assertTrue(api.isLive(handle), "the handle is still the other library's");
        CollectivesException closed = assertThrows(CollectivesException.class, comm::createStream);
        assertTrue(closed.getMessage().contains("communicator is closed"), closed.getMessage());
    }

    @Test
    void aWrappedHandleIsNeverAbortedHereNotByAbortNorAfterAFailure() throws Exception {
        long handle = api.madeElsewhere(2, 0);
        DeviceCommunicator comm = ForeignCommunicators.wrap(library, handle, Peers.FOREIGN);
        Stream stream = comm.createStream();
        DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
        api.on("allReduce", () -> api.asyncError(Result.REMOTE_ERROR.code())).streamsNeverFinish();
        comm.allReduce(buffer, buffer, 1024, DataType.FLOAT32, ReduceOp.SUM, stream);

        CollectivesException e = assertThrows(CollectivesException.class, stream::synchronize);

        assertTrue(
                e.getMessage()
                        .endsWith("; this rank stopped using the communicator, which the library that made it must "
                                + "abort"),
                e.getMessage());
        comm.abort();
        buffer.close();
        stream.close();
        comm.close();
        assertEquals(0, api.count("commAbort"));
        assertTrue(api.isLive(handle));
    }

    @Test
    void aNullHandleIsRefused() {
        CollectivesException e =
                assertThrows(CollectivesException.class, () -> ForeignCommunicators.wrap(library, 0, Peers.FOREIGN));
        assertEquals("wrapCommunicator: the handle is 0, not a ncclComm_t that was made", e.getMessage());
    }
}
