package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.member.TcpMember;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.JobToken;
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
     * Rank {@code rank} joins as its {@code claim} says (a rank of the job, the replacement of that rank, which died,
     * or a process that joins the running job at its next growth); the option {@link Settings#SERVER} of
     * {@code options} says who serves.
     */
    static Rendezvous open(
            RendezvousEndpoint endpoint,
            int rank,
            int size,
            JobToken token,
            Duration timeout,
            Duration heartbeatTimeout,
            FrameRules.Claim claim,
            Function<String, Optional<String>> options) {
        boolean standalone = Settings.standalone(options.apply(Settings.SERVER), rank);
        if (claim == FrameRules.Claim.GROW) {
            return TcpMember.join(endpoint, -1, -1, token, timeout, heartbeatTimeout, claim, standalone, null);
        }
        if (rank != 0 || claim != FrameRules.Claim.JOIN || standalone) {
            return TcpMember.join(endpoint, rank, size, token, timeout, heartbeatTimeout, claim, standalone, null);
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
                server.endpoint(),
                0,
                size,
                token,
                timeout,
                server.heartbeatTimeout(),
                FrameRules.Claim.JOIN,
                false,
                server);
        String failure = server.awaitFormed();
        if (failure != null) {
            throw member.fail(BootstrapException.failed(0, failure, null));
        }
        return member;
    }
}
