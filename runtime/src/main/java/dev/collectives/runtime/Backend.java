package dev.collectives.runtime;

import dev.collectives.runtime.bootstrap.Bootstrap;

/**
 * A collective library: {@code sim} (embedded), {@code nccl} or {@code mccl}. Implementations are found with
 * {@link java.util.ServiceLoader}; get one through {@link Backends}.
 */
public interface Backend {
    /** "sim", "nccl", "mccl" */
    String name();

    /** Checked without side effects; unavailable backends say which library or symbol is missing. */
    Availability availability();

    /**
     * {@code ranks} ranks on this host: threads for {@code sim}, one device each for the native backends.
     * Fails with a {@link CollectivesException} when unavailable or when there are fewer devices than ranks.
     */
    LocalCluster local(int ranks);

    /**
     * Joins this process to a multi-process job as {@code bootstrap.rank()} of {@code bootstrap.size()}: meets the
     * other ranks through {@code bootstrap.rendezvous()}, carries the communicator's unique id from rank 0 to every
     * rank, and forms the communicator on {@code bootstrap.device()}. Fails with a {@link CollectivesException}
     * naming the ranks and address involved when the job does not form within the bootstrap's timeout.
     */
    default JoinedRank join(Bootstrap bootstrap) {
        throw CollectivesException.usage(
                bootstrap.rank(),
                "backend '" + name() + "' cannot join multi-process jobs; use local(n) for ranks of one process");
    }
}
