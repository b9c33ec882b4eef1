package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Gather and scatter call the library's functions where it has them, else a group of sends and receives, which
 * {@value DeviceCollectives#GATHER_SCATTER_PROPERTY} can also ask for; the communicator says which and why.
 */
class GatherScatterFormTest {
    private static final int RANKS = 3;
    private static final int ROOT = 1;
    private static final long COUNT = 4;
    /** The library calls an op is issued as; others (stream queries) are left out. */
    private static final Set<String> ISSUED = Set.of("gather", "scatter", "send", "recv", "groupStart", "groupEnd");

    @AfterEach
    void clearTheSetting() {
        System.clearProperty(DeviceCollectives.GATHER_SCATTER_PROPERTY);
    }

    @Test
    void theLibrarysGatherAndScatterWhereItHasThem() {
        ScriptedNativeApi api = new ScriptedNativeApi();
        assertEquals(List.of("gather", "scatter"), callsAtRoot(api));
        DeviceCommunicator comm = api.communicator(ROOT, RANKS);
        assertEquals(Optional.empty(), comm.sendRecvForm(OpKind.GATHER));
        comm.close();
    }

    @Test
    void aGroupOfSendsAndReceivesWhereTheLibraryLacksThem() {
        ScriptedNativeApi api = new ScriptedNativeApi().lacking("Gather").lacking("Scatter");
        // peer by peer: the root (rank 1) exchanges its own block with itself as with every other rank
        List<String> gather = List.of("groupStart", "recv", "send", "recv", "recv", "groupEnd");
        List<String> scatter = List.of("groupStart", "send", "send", "recv", "send", "groupEnd");
        assertEquals(concat(gather, scatter), callsAtRoot(api));
        DeviceCommunicator comm = api.communicator(ROOT, RANKS);
        assertEquals(Optional.of("the library has no ncclGather"), comm.sendRecvForm(OpKind.GATHER));
        comm.close();
    }

    @Test
    void theSettingAsksForTheGroupEvenWhereTheLibraryHasThem() {
        System.setProperty(DeviceCollectives.GATHER_SCATTER_PROPERTY, "send-recv");
        ScriptedNativeApi api = new ScriptedNativeApi();
        List<String> calls = callsAtRoot(api);
        assertEquals("groupStart", calls.get(0));
        assertTrue(!calls.contains("gather") && !calls.contains("scatter"), calls.toString());
        DeviceCommunicator comm = api.communicator(ROOT, RANKS);
        assertEquals(
                Optional.of(DeviceCollectives.GATHER_SCATTER_VARIABLE + " (or -D"
                        + DeviceCollectives.GATHER_SCATTER_PROPERTY + ") asks for send-recv"),
                comm.sendRecvForm(OpKind.SCATTER));
        comm.close();
    }

    @Test
    void aSettingOfNeitherFormIsRefused() {
        System.setProperty(DeviceCollectives.GATHER_SCATTER_PROPERTY, "grouped");
        ScriptedNativeApi api = new ScriptedNativeApi();
        CollectivesException e = assertThrows(CollectivesException.class, () -> api.communicator(0, 1));
        assertTrue(e.getMessage().contains("is 'grouped', not 'native' or 'send-recv'"), e.getMessage());
    }

    /** The collective calls the root's gather and scatter make, in order. */
    private static List<String> callsAtRoot(ScriptedNativeApi api) {
        DeviceCommunicator comm = api.communicator(ROOT, RANKS);
        Stream stream = comm.createStream();
        DeviceBuffer one = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
        DeviceBuffer all = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT * RANKS);
        int before = api.calls().size();
        comm.gather(one, all, COUNT, DataType.FLOAT32, ROOT, stream);
        comm.scatter(all, one, COUNT, DataType.FLOAT32, ROOT, stream);
        List<String> calls = api.calls().subList(before, api.calls().size()).stream()
                .filter(ISSUED::contains)
                .toList();
        one.close();
        all.close();
        stream.close();
        comm.close();
        assertEquals(List.of(), api.misuse());
        return calls;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
