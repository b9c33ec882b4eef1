package dev.collectives.runtime;

import dev.collectives.runtime.bootstrap.server.JobServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The server of a {@code tcp://} rendezvous, run in a process of its own. By default rank 0's process serves its job's
 * rendezvous, as PyTorch's rank 0 hosts its {@code TCPStore}, so rank 0's death ends the job. A server of its own, as
 * torchrun's agent hosts its store, outlives any rank: the survivors of any rank's death, rank 0's too, still have a
 * place to meet, and a process started in a dead rank's place can join. Every rank then sets
 * {@code COLLECTIVES_RENDEZVOUS_SERVER=standalone} beside {@code COLLECTIVES_RENDEZVOUS=tcp://host:port} of this server
 * (or the {@link Bootstrap#option option} {@code rendezvousServer=standalone}); a replacement also sets
 * {@code COLLECTIVES_REPLACEMENT=1} (the option {@code replacement}).
 *
 * <p>It serves until every rank has left or died, or the job ended ({@link #awaitEnd}), and watches the ranks: a rank
 * that sends nothing, not even a heartbeat, for the heartbeat timeout is declared dead and excluded, as one whose
 * process died. The command line's {@code rendezvous} runs one. Closing it ends the job; idempotent.
 */
public final class RendezvousServer implements AutoCloseable {
    /** How long the ranks may take to join, and each operation, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_TIMEOUT = JobServer.DEFAULT_TIMEOUT;
    /** How long a rank may be silent before it is declared dead, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = JobServer.DEFAULT_HEARTBEAT_TIMEOUT;

    private final JobServer server;

    private RendezvousServer(JobServer server) {
        this.server = server;
    }

    /**
     * Serves a job of {@code size} ranks at {@code endpoint}, admitting those that prove they hold {@code jobToken};
     * each operation, and the joining, within {@code timeout}; ranks silent for {@link #DEFAULT_HEARTBEAT_TIMEOUT} are
     * declared dead.
     */
    public static RendezvousServer start(RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout) {
        return start(endpoint, size, jobToken, timeout, DEFAULT_HEARTBEAT_TIMEOUT);
    }

    /**
     * As {@link #start(RendezvousEndpoint, int, String, Duration)}; a rank that sends nothing, not even a heartbeat,
     * for {@code heartbeatTimeout} is declared dead and excluded from the job (the ranks beat at a sixth of it).
     */
    public static RendezvousServer start(
            RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout, Duration heartbeatTimeout) {
        return new RendezvousServer(JobServer.start(endpoint, size, jobToken, timeout, heartbeatTimeout));
    }

    /** Where it serves. */
    public RendezvousEndpoint endpoint() {
        return server.endpoint();
    }

    /** How long a rank may be silent before this server declares it dead. */
    public Duration heartbeatTimeout() {
        return server.heartbeatTimeout();
    }

    /**
     * Waits until the job is over, and says how it ended: empty once every rank has left or died (with the deaths
     * listed by {@link #deaths}), else why the job failed (ranks that did not join within the timeout among them).
     */
    public Optional<String> awaitEnd() throws InterruptedException {
        return server.awaitEnd();
    }

    /** Why each rank that died while the job ran is gone, in the order they died. */
    public List<String> deaths() {
        return server.deaths();
    }

    /** How many heartbeats this server has sent to its ranks so far (each a message of 45 bytes). */
    public long heartbeatsSent() {
        return server.heartbeatsSent();
    }

    /**
     * How many heartbeats this server has received from its ranks so far (each a message of 45 bytes, and about 35
     * more for each communicator its rank reports the progress of).
     */
    public long heartbeatsReceived() {
        return server.heartbeatsReceived();
    }

    /**
     * Where the job's live page is ({@code http://127.0.0.1:port/}, with its metrics at {@code /metrics}), where
     * {@code COLLECTIVES_JOB_PAGE} (or {@code -Dcollectives.jobPage}) turned it on; empty by default.
     */
    public Optional<URI> page() {
        return server.page();
    }

    /** Stops serving: ranks still in the job fail, naming this server. Idempotent. */
    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return "the rendezvous server at " + endpoint();
    }
}
