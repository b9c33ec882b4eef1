package dev.collectives.runtime.bootstrap;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * TCP: rank 0 serves at the endpoint ({@link TcpRoot}) and the others connect to it ({@link TcpMember}), or every rank
 * connects to a {@link RendezvousServer} there ({@code standalone}).
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
        return rank == 0 && !replacement && !standalone
                ? TcpRoot.serve(endpoint, size, token, timeout)
                : TcpMember.join(endpoint, rank, size, token, timeout, heartbeatTimeout, replacement, standalone);
    }
}
