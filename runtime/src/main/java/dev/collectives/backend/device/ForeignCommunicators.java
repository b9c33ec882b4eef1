package dev.collectives.backend.device;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Peers;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.spi.Joined;
import dev.collectives.runtime.spi.Lineage;
import java.lang.System.Logger.Level;
import java.util.EnumSet;
import java.util.Set;

/**
 * Communicators formed with other libraries: a unique id for peers ({@code GetUniqueId}), a rank that forms its
 * communicator from a unique id made elsewhere ({@code CommInitRank(Config)}, no rendezvous), and a handle that
 * another library made in this process, wrapped without taking it over ({@link CommOrigin#borrowed}). Each
 * communicator formed or wrapped here is logged once, with the library's version and, where its peers may not run
 * this library, that the checks across ranks are off and why.
 */
final class ForeignCommunicators {
    private static final System.Logger LOG = System.getLogger("dev.collectives.device");
    /** What CommInitRank answers when its peers' libraries cannot talk to each other. */
    private static final Set<Result> MISMATCH_RESULTS = EnumSet.of(
            Result.INVALID_USAGE,
            Result.INVALID_ARGUMENT,
            Result.INTERNAL_ERROR,
            Result.SYSTEM_ERROR,
            Result.REMOTE_ERROR);

    private ForeignCommunicators() {}

    /** A new unique id of {@code library} ({@code GetUniqueId}). */
    static UniqueId uniqueId(NativeLibrary library) {
        byte[] id = new byte[UniqueId.BYTES];
        library.check(library.api.getUniqueId(library.lib, id), -1, 0, "GetUniqueId");
        return UniqueId.of(id);
    }

    /**
     * This process's rank of the job formed from {@code id}, on {@code bootstrap.device()}, with no rendezvous: no
     * job watch either, and the topology from the launcher's local size (else all ranks on one node).
     */
    static JoinedRank join(NativeLibrary library, Bootstrap bootstrap, UniqueId id, CommConfig config) {
        int rank = bootstrap.rank();
        int size = bootstrap.size();
        int device = bootstrap.device();
        library.checkRuntime(library.api.setDevice(library.lib, device), rank, "SetDevice");
        long handle;
        try {
            handle = config.initRank(library, size, id.bytes(), rank, Waits.SYSTEM, bootstrap.timeout());
        } catch (CollectivesException e) {
            throw MISMATCH_RESULTS.contains(e.result()) ? initFailure(library, e, rank) : e;
        }
        int ranksPerNode = Math.min(size, bootstrap.localSize().orElse(size));
        DeviceCommunicator comm = formed(
                library,
                new DeviceCommunicator(
                        library,
                        handle,
                        rank,
                        size,
                        device,
                        new Topology(size, ranksPerNode),
                        config.collnetEnable() == 1,
                        Waits.SYSTEM,
                        null,
                        CommOrigin.fromUniqueId(bootstrap.peers()),
                        Lineage.ofUniqueId(id.bytes())),
                "formed from a " + id);
        try {
            return new Joined(comm, comm.createStream(), bootstrap.localRank(), device);
        } catch (RuntimeException e) {
            comm.close();
            throw e;
        }
    }

    /**
     * A communicator over {@code handle}, which another library made in this process: its rank, size and device
     * read from the library ({@code CommUserRank}, {@code CommCount}, {@code CommCuDevice}); the topology assumes
     * all its ranks on one node, since the library does not say.
     */
    static DeviceCommunicator wrap(NativeLibrary library, long handle, Peers peers) {
        if (handle == 0) {
            throw CollectivesException.usage(
                    -1, "wrapCommunicator: the handle is 0, not a " + library.dialect.ccl("Comm_t") + " that was made");
        }
        int[] out = new int[1];
        library.check(library.api.commCount(library.lib, handle, out), -1, handle, "CommCount");
        int size = out[0];
        library.check(library.api.commUserRank(library.lib, handle, out), -1, handle, "CommUserRank");
        int rank = out[0];
        library.check(library.api.commDevice(library.lib, handle, out), rank, handle, "CommDevice");
        int device = out[0];
        Topology oneNode = new Topology(size, size);
        return formed(
                library,
                new DeviceCommunicator(
                        library,
                        handle,
                        rank,
                        size,
                        device,
                        oneNode,
                        false,
                        Waits.SYSTEM,
                        null,
                        CommOrigin.borrowed(peers),
                        Lineage.wrapped(size)),
                "wrapped from a handle another library made");
    }

    /**
     * {@code comm}, after logging the one line that says how it was formed, on which library, and whether the checks
     * across ranks run.
     */
    private static DeviceCommunicator formed(NativeLibrary library, DeviceCommunicator comm, String how) {
        String checks = comm.crossRankChecksOff()
                .map(why -> "checks across ranks are off: " + why + "; bind checks the rules each rank can alone")
                .orElse("checks across ranks run over the communicator");
        LOG.log(
                Level.INFO,
                comm + " (" + library.dialect.backendName() + " " + library.versionString() + ", " + library.cclFile
                        + ") " + how + "; " + checks);
        return comm;
    }

    /** {@code failure} of CommInitRank with a unique id from elsewhere, with the likely cause. */
    private static CollectivesException initFailure(NativeLibrary library, CollectivesException failure, int rank) {
        String name = library.dialect.backendName().toUpperCase(java.util.Locale.ROOT);
        String message = failure.getMessage();
        int detail = message.indexOf(" failed: ");
        return CollectivesException.library(
                failure.result(),
                rank,
                library.dialect.ccl(library.configLayout() == 0 ? "CommInitRank" : "CommInitRankConfig")
                        + " with a unique id made elsewhere",
                (detail < 0 ? message : message.substring(detail + " failed: ".length()))
                        + ". With peers of another library, the likely cause is a different " + name
                        + " on some side (this process loaded " + name + " " + library.versionString() + " from "
                        + library.cclFile + "; point " + library.dialect.libraryVariable(0) + " at the library the "
                        + "other side loads, e.g. the nvidia-nccl-cu12 package's libnccl.so.2 in its Python "
                        + "environment), or a unique id that another build of the library made");
    }
}
