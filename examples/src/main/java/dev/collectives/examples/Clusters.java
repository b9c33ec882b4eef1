package dev.collectives.examples;

import dev.collectives.backend.sim.SimConfig;
import dev.collectives.examples.ClusterSpec.Need;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.LocalCluster;
import java.time.Duration;

/**
 * Opens the ranks an example runs on. On {@code sim} the cluster is configured to the example's
 * {@link ClusterSpec}: its topology, its capabilities and the legacy-registration variable, set or explicitly
 * unset (so that whatever the calling shell exports does not change what an example shows). A real library offers
 * what the hardware and the environment offer; {@link ClusterSpec#unmetBy} then tells the runner to skip.
 */
public final class Clusters {
    /**
     * The embedded backend's name. (Naming {@code SimBackend} itself here would pull its {@code @AutoService}
     * annotation, which is not on this module's class path, into the compilation.)
     */
    private static final String SIM = "sim";

    /** How long a simulated rank waits for peers when running an example. */
    public static final Duration EXAMPLE_TIMEOUT = SimConfig.DEFAULT_TIMEOUT;

    /** How long a simulated rank waits for peers when running a mistake, which must fail fast, not hang. */
    public static final Duration MISTAKE_TIMEOUT = Duration.ofSeconds(5);

    private Clusters() {}

    /** {@code timeout}: how long a simulated rank waits for its peers; the native libraries have their own. */
    public static LocalCluster open(Backend backend, ClusterSpec spec, int ranks, Duration timeout) {
        if (!SIM.equals(backend.name())) {
            return backend.local(ranks);
        }
        SimConfig.Builder config = SimConfig.builder()
                .ranks(ranks)
                .mtlinkSharp(spec.needs(Need.MTLINK_SHARP))
                .ibSharp(spec.needs(Need.IB_SHARP))
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, spec.needs(Need.LEGACY_REGISTER) ? "1" : null)
                .timeout(timeout);
        if (spec.ranksPerNode() > 0) {
            config.ranksPerNode(spec.ranksPerNode());
        }
        return config.build();
    }
}
