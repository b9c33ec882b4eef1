package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.Gatherer;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.file.FileRendezvous;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a rank meets the others of its job: the one way into the control plane from
 * {@link dev.collectives.runtime.Bootstrap#rendezvous()}. Public only because the multi-process API lives in
 * {@code dev.collectives.runtime}; not API: it may change without notice.
 */
public final class ControlPlane {
    private ControlPlane() {}

    /** A job of one process: nobody to meet. */
    public static Rendezvous alone() {
        return new SingleRankRendezvous();
    }

    /** The ranks meet through {@code gatherer}, a service that holds them together; {@code where} names it. */
    public static Rendezvous gathered(int rank, int size, String where, Duration timeout, Gatherer gatherer) {
        return new GatheredRendezvous(rank, size, where, timeout, gatherer);
    }

    /**
     * Rank {@code rank} of {@code size} meets the others at {@code where} ({@code tcp://} or {@code file:}),
     * authenticated by {@code jobToken}; a {@code replacement} joins a running TCP job in the place of that rank,
     * which died, and a {@code joining} process joins one at its next growth. The options (the
     * {@code rendezvousServer} option) say who serves a TCP job.
     */
    public static Rendezvous meet(
            RendezvousEndpoint where,
            int rank,
            int size,
            String jobToken,
            Duration timeout,
            Duration heartbeatTimeout,
            boolean replacement,
            boolean joining,
            Function<String, Optional<String>> options) {
        JobToken token = JobToken.of(jobToken, rank);
        FrameRules.Claim claim =
                joining ? FrameRules.Claim.GROW : replacement ? FrameRules.Claim.REPLACE : FrameRules.Claim.JOIN;
        return where.kind() == RendezvousEndpoint.Kind.TCP
                ? TcpRendezvous.open(where, rank, size, token, timeout, heartbeatTimeout, claim, options)
                : FileRendezvous.open(where, rank, size, token, timeout);
    }
}
