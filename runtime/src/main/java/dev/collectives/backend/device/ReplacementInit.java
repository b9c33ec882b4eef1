package dev.collectives.backend.device;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Reform;
import java.time.Duration;
import java.util.function.Function;

/**
 * A reform after ranks died: the survivors meet, through the job's rendezvous, the processes started in the places
 * of the dead ranks ({@link Rendezvous#reunite}), and all of them form a communicator of the job's size as they
 * joined it ({@link RendezvousInit#form}: a new unique id of rank 0, {@code CommInitRank(Config)} with the config the
 * survivors joined with). The replacements come the same way through {@link DeviceJoin#join}. The new communicator
 * takes the job over: it watches it, numbered as the job, and the survivor's aborted one leaves the watch.
 */
final class ReplacementInit {
    private ReplacementInit() {}

    /**
     * {@code survivor}'s communicator (its {@code parts}) with the replacements, joined with {@code config}, as
     * {@code takeOver} makes it from what formed; waits up to {@code timeout}.
     */
    static Communicator reform(
            Communicator survivor,
            DeviceRank parts,
            CommConfig config,
            Duration timeout,
            Function<FormedComm, Communicator> takeOver) {
        NativeComm handle = parts.nativeComm();
        if (handle.job().ranks() != null && !handle.job().ranks().numberedAsTheJob()) {
            throw Reform.notTheJobs(survivor);
        }
        if (!handle.isAborted()) {
            throw Reform.notAborted(survivor);
        }
        Rendezvous rendezvous = handle.job().survivorsRendezvous("reform");
        int[] replaced;
        FormedComm formed;
        try {
            replaced = rendezvous.reunite(timeout);
            NativeLibrary library = parts.library();
            formed = RendezvousInit.form(
                    library,
                    rendezvous,
                    parts.rank(),
                    parts.size(),
                    parts.device(),
                    config,
                    parts.lineage().reformed(replaced),
                    "GetUniqueId",
                    id -> library.api.getUniqueId(library.lib, id),
                    id -> initWatched(handle, library, config, id, parts.rank(), parts.size(), timeout));
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
        Communicator reformed = takeOver.apply(formed.holding(JobRanks.ofJob(rendezvous.size())));
        Reform.logFor(reformed, replaced);
        return reformed;
    }

    /**
     * The library's init of the reformed communicator, once its id was shared: the job is watched again from now on,
     * so that a rank that dies while the library waits for every rank ends the wait, naming it and the death the
     * survivors recover from, not at the library's timeout.
     */
    private static long initWatched(
            NativeComm handle,
            NativeLibrary library,
            CommConfig config,
            byte[] id,
            int rank,
            int size,
            Duration timeout) {
        String call = library.dialect.ccl("CommInitRank");
        try (JobWatch.Forming deaths = handle.job().whileForming(JobRanks.ofJob(size), call)) {
            return config.initRank(library, size, id, rank, Waits.SYSTEM, timeout, deaths::requireNoDeath);
        }
    }
}
