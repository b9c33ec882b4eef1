package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * TCP: a {@link JobServer} serves at the endpoint, and every rank joins it as a member ({@link TcpMember}). Rank
 * 0's process hosts the server, unless a process of its own does ({@code standalone}).
 */
final class TcpRendezvous {
    private TcpRendezvous() {}

    /**
     * Rank {@code rank} joins, or a {@code replacement} of that rank, which died, joins the running job; the option
     * {@link Settings#SERVER} of {@code options} says who serves.
     */
    static Rendezvous open(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            JobToken token,
            Duration timeout,
            Duration heartbeatTimeout,
            boolean replacement,
            Function<String, Optional<String>> options) {
        boolean standalone = Settings.standalone(options.apply(Settings.SERVER), rank);
        if (rank != 0 || replacement || standalone) {
            return TcpMember.join(
                    endpoint, rank, size, token, timeout, heartbeatTimeout, replacement, standalone, null);
        }
        return hostAndJoin(
                JobServer.inRankZeroProcess(endpoint, size, token, timeout, heartbeatTimeout), size, token, timeout);
    }

    /**
     * Rank 0 joins the server its process hosts, and returns once every rank has joined (or fails naming those
     * missing, or why the job ended first). Its member beats on its loopback connection as every member does: the
     * server watches every member alike.
     */
    static Rendezvous hostAndJoin(JobServer server, int size, JobToken token, Duration timeout) {
        TcpMember member = TcpMember.join(
                server.endpoint(), 0, size, token, timeout, server.heartbeatTimeout(), false, false, server);
        String failure = server.awaitFormed();
        if (failure != null) {
            throw member.fail(BootstrapException.failed(0, failure, null));
        }
        return member;
    }
}
