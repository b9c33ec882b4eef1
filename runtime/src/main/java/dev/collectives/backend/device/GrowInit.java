package dev.collectives.backend.device;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.bootstrap.AmongSurvivors;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.Grow;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Lineage;
import java.time.Duration;
import java.util.function.Function;

/**
 * A growth of a job of processes: its ranks stop watching it, take in the processes that join through the job's
 * rendezvous ({@link Rendezvous#grow}), and the live ranks of the job (in its order: the members, then the processes
 * that joined, which take the job's numbers after its highest) form a communicator of the larger size as they joined
 * it ({@link RendezvousInit#form}: a new unique id of its rank 0, {@code CommInitRank(Config)} with the config the ranks
 * joined with). Where ranks of the job died before (it grows from a shrink's child), they meet among the survivors
 * ({@link AmongSurvivors}) and the new ranks take the numbers after the communicator's size. The processes that join
 * come the same way through {@link DeviceJoin#joinJob}. The new communicator takes the job over: it watches it,
 * naming a rank in the job's numbering and in its own where the two differ, and the one it grew from leaves the
 * watch. Where the growth fails on every rank, the job goes on at its size, watched again.
 */
final class GrowInit {
    private GrowInit() {}

    /**
     * {@code member}'s communicator (its {@code parts}) grown by {@code added}, joined with {@code config}, as
     * {@code takeOver} makes it from what formed; waits up to {@code timeout}.
     */
    static Communicator grow(
            Communicator member,
            DeviceRank parts,
            CommConfig config,
            int added,
            Duration timeout,
            Function<FormedComm, Communicator> takeOver) {
        if (added < 1) {
            throw Grow.notPositive(member, added);
        }
        NativeComm handle = parts.nativeComm();
        if (!handle.job().isWatched() || handle.job().ranks().madeBySplit()) {
            throw Grow.notTheJobs(member);
        }
        if (handle.isAborted()) {
            throw Grow.aborted(member);
        }
        Rendezvous rendezvous = handle.job().growthRendezvous("grow: " + member);
        FormedComm formed;
        try {
            rendezvous.grow(added, timeout);
            AmongSurvivors live = AmongSurvivors.of(rendezvous);
            formed = formGrown(
                            parts.library(),
                            live,
                            handle,
                            parts.device(),
                            config,
                            timeout,
                            parts.lineage().grown(live.size()))
                    .holding(ranksOf(live));
        } catch (BootstrapException e) {
            if (e.jobGoesOn()) {
                handle.job().watchAgain();
            } else {
                rendezvous.close();
            }
            throw e;
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
        Communicator grown = takeOver.apply(formed);
        Grow.logFor(grown, member.size(), path(parts.library()));
        return grown;
    }

    /** The job's ranks that the communicator of {@code live} holds. */
    static JobRanks ranksOf(AmongSurvivors live) {
        return JobRanks.grown(live.jobRanks(), live.job().size());
    }

    /** How a grown communicator is formed, for its log line. */
    private static String path(NativeLibrary library) {
        return library.has(NativeLibrary.Slots.COMM_GROW)
                ? "by " + library.dialect.ccl("CommGrow")
                : "through the job's rendezvous";
    }

    /**
     * This rank's communicator of the {@code live} ranks of the job that grew (its rank and size among them), from
     * {@code parent}, the communicator it grew from (null on a process that joined): by {@code CommGrow} where the
     * library has it (rank 0 makes the grow's id, {@code CommGetUniqueId}, which reaches the processes that join
     * through the rendezvous), else formed anew as at join ({@link RendezvousInit#form}). Where no rank of the job died,
     * the ranks meet through the job's rendezvous itself. The ranks take rank 0's {@code claim} of its name.
     */
    static FormedComm formGrown(
            NativeLibrary library,
            AmongSurvivors live,
            NativeComm parent,
            int device,
            CommConfig config,
            Duration timeout,
            Lineage claim) {
        Rendezvous rendezvous = live.numberedAsTheJob() ? live.job() : live;
        int rank = live.rank();
        int size = live.size();
        if (!library.has(NativeLibrary.Slots.COMM_GROW)) {
            return RendezvousInit.form(library, rendezvous, rank, size, device, config, timeout, claim);
        }
        long from = parent == null ? 0 : parent.handle();
        return RendezvousInit.form(
                library,
                rendezvous,
                rank,
                size,
                device,
                config,
                claim,
                "CommGetUniqueId",
                id -> library.api.commGetUniqueId(library.lib, from, id),
                id -> commGrow(library, from, rank, size, id, timeout));
    }

    /**
     * {@code CommGrow} of {@code parent} (0 on a process that joins, which passes its {@code rank}; the parent's ranks
     * pass -1, and only its rank 0 the id) to {@code size} ranks; waits up to {@code timeout} for it to form.
     */
    private static long commGrow(NativeLibrary library, long parent, int rank, int size, byte[] id, Duration timeout) {
        boolean joins = parent == 0;
        try (NativeSlot out = new NativeSlot()) {
            int rc = library.api.commGrow(
                    library.lib, parent, size, id, joins || rank == 0 ? 1 : 0, joins ? rank : -1, out.pointer());
            return out.formed(library, rc, "CommGrow", rank, size, Waits.SYSTEM, timeout, () -> {});
        }
    }
}
