package dev.collectives.runtime.bootstrap;

/**
 * The job's server as the member in the same process sees it, where rank 0's process hosts it: the member ends the
 * job when rank 0 fails and closes the server after itself. An interface, so that the member side knows nothing of
 * the server's.
 */
public interface HostedServer extends AutoCloseable {
    /** Ends the job for every member, for {@code cause}. */
    void endJob(Cause cause);

    @Override
    void close();
}
