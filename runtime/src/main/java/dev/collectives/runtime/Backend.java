package dev.collectives.runtime;

/**
 * A collective library: {@code sim} (embedded), {@code mccl} or {@code nccl}. Implementations are found with
 * {@link java.util.ServiceLoader}; get one through {@link Backends}.
 */
public interface Backend {
    /** "sim", "mccl", "nccl" */
    String name();

    /** Checked without side effects; unavailable backends say which library or symbol is missing. */
    Availability availability();

    /**
     * {@code ranks} ranks on this host: threads for {@code sim}, one device each for the native backends.
     * Fails with a {@link CollectivesException} when unavailable or when there are fewer devices than ranks.
     */
    LocalCluster local(int ranks);
}
