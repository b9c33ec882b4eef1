package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;

/**
 * A split's native call, and which of its parent's ranks the child holds, so that the child of a watched job shares the job's watch
 * ({@link CommJob#watchAsChildOf}): the library numbers a split's child by the colours and keys of every rank,
 * and tells each rank only its own place. The child's ranks gather each one's rank in the parent, in one
 * {@code AllGather} of a 4-byte integer each on a stream of their own, once, when the child is made; a child whose
 * job is not watched (ranks that are threads of one process, a job met through files) gathers nothing.
 */
final class SplitMembers {
    private SplitMembers() {}

    /**
     * {@code ncclCommSplit} of {@code parent} (rank {@code rank}) with its config: the child's handle once formed, or
     * 0 for {@code NO_COLOR}.
     */
    static long commSplit(NativeComm parent, int rank, int color, int key) {
        NativeLibrary library = parent.library();
        library.requireAvailable(rank, NativeLibrary.Slots.COMM_SPLIT);
        try (NativeSlot out = new NativeSlot()) {
            int rc = parent.onHandle(comm -> library.api.commSplit(library.lib, comm, color, key, out.pointer()));
            return out.afterGroupJob(parent, rc, library.dialect.ccl("CommSplit"));
        }
    }

    /**
     * Has {@code child} (its handle {@code childHandle}), of the split with {@code color} of {@code parent} (where
     * this is rank {@code parentRank}), watched with its job where the parent is.
     */
    static void watch(NativeComm parent, int parentRank, Communicator child, NativeComm childHandle, int color) {
        if (!parent.job().isWatched()) {
            return;
        }
        int[] here;
        try {
            here = parentRanks(child, parentRank);
        } catch (RuntimeException e) {
            child.abort(); // the others fail in the same gather, or at their own timeout
            child.close();
            throw e;
        }
        childHandle.job().watchAsChildOf(parent.job(), ranks -> ranks.split(here, color));
    }

    /** Each rank of {@code child}'s rank in the parent, in the child's order; this rank's is {@code parentRank}. */
    private static int[] parentRanks(Communicator child, int parentRank) {
        int[] all = new int[child.size()];
        try (Stream stream = child.createStream();
                DeviceBuffer mine = child.allocate(Allocator.LEGACY, DataType.INT32, 1);
                DeviceBuffer gathered = child.allocate(Allocator.LEGACY, DataType.INT32, all.length)) {
            mine.copyFromHost(new int[] {parentRank});
            child.allGather(mine, gathered, 1, DataType.INT32, stream);
            stream.synchronize();
            gathered.copyToHost(all);
        }
        return all;
    }
}
