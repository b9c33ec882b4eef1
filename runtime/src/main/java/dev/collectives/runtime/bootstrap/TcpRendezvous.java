package dev.collectives.runtime.bootstrap;

import java.time.Duration;

/** TCP: rank 0 serves at the endpoint ({@link TcpRoot}), the others connect to it ({@link TcpMember}). */
final class TcpRendezvous {
    private TcpRendezvous() {}

    static Rendezvous open(RendezvousEndpoint endpoint, int rank, int size, JobToken token, Duration timeout) {
        return rank == 0
                ? TcpRoot.serve(endpoint, size, token, timeout)
                : TcpMember.join(endpoint, rank, size, token, timeout);
    }
}
