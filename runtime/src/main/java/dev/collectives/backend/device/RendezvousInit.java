package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.Lineage;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * How the ranks of a job form a communicator through its rendezvous, at join and when the job is formed anew or
 * grows: rank 0 makes the id, every rank receives it and makes its communicator from it.
 */
final class RendezvousInit {
    private RendezvousInit() {}

    /**
     * The communicator of rank {@code rank} of {@code size} on {@code device}, made with {@code config}, from rank 0's
     * unique id, which reaches every rank through {@code rendezvous}; every rank of the job calls it, also when the
     * survivors of a death and its replacements meet again ({@link ReplacementInit}) and where the job grows ({@link GrowInit}); every rank must join the
     * communicator within {@code timeout}. Every rank takes rank 0's {@code claim} of its name: derived from the
     * communicator rank 0 held where it was there before (a reform, a growth), else a new job's. Where rank 0 itself
     * was replaced, the reformed communicator is named as a new job's.
     */
    static FormedComm form(
            NativeLibrary library,
            Rendezvous rendezvous,
            int rank,
            int size,
            int device,
            CommConfig config,
            Duration timeout,
            Lineage claim) {
        return form(
                library,
                rendezvous,
                rank,
                size,
                device,
                config,
                claim,
                "GetUniqueId",
                id -> library.api.getUniqueId(library.lib, id),
                id -> config.initRank(library, size, id, rank, Waits.SYSTEM, timeout));
    }

    /**
     * As {@link #form(NativeLibrary, Rendezvous, int, int, int, CommConfig, Duration, Lineage)}, with the id that rank 0 makes
     * by {@code makeId} (the library's {@code idCall}, e.g. "GetUniqueId"), and the communicator each rank makes from
     * it by {@code init} (its handle).
     */
    static FormedComm form(
            NativeLibrary library,
            Rendezvous rendezvous,
            int rank,
            int size,
            int device,
            CommConfig config,
            Lineage claim,
            String idCall,
            ToIntFunction<byte[]> makeId,
            ToLongFunction<byte[]> init) {
        byte[] id = new byte[UniqueId.BYTES];
        rendezvous.agree("backend", library.dialect.backendName() + " " + library.versionString());
        if (rank == 0) {
            try {
                library.check(makeId.applyAsInt(id), rank, 0, idCall);
            } catch (CollectivesException e) {
                rendezvous.abort(e.getMessage()); // the others fail at once with the reason, not at the timeout
                throw e;
            }
        }
        // rank 0's id and its claim of the communicator's name, which every rank takes
        byte[] fromRankZero = rendezvous.broadcast(concat(id, claim.claim()));
        id = Arrays.copyOf(fromRankZero, UniqueId.BYTES);
        Lineage lineage =
                Lineage.agreed(new byte[][] {Arrays.copyOfRange(fromRankZero, UniqueId.BYTES, fromRankZero.length)});
        int ranksPerNode = rendezvous.ranksPerNode();
        library.checkRuntime(library.api.setDevice(library.lib, device), rank, "SetDevice");
        return new FormedComm(
                library,
                init.applyAsLong(id),
                rank,
                size,
                device,
                new Topology(size, ranksPerNode),
                config.collnetEnable() == 1,
                lineage,
                null);
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
