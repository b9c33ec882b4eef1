package dev.collectives.runtime.bootstrap;

import java.time.Duration;

/** TCP: rank 0 serves at the endpoint ({@link TcpRoot}), the others connect to it ({@link TcpMember}). */
final class TcpRendezvous {
    private TcpRendezvous() {}

    /** Rank {@code rank} joins, or a {@code replacement} of that rank, which died, joins the running job. */
    static Rendezvous open(
            RendezvousEndpoint endpoint, int rank, int size, JobToken token, Duration timeout, boolean replacement) {
        return rank == 0 && !replacement
                ? TcpRoot.serve(endpoint, size, token, timeout)
                : TcpMember.join(endpoint, rank, size, token, timeout, replacement);
    }
}
