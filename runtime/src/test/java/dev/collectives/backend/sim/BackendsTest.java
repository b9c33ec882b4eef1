package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.LocalCluster;
import org.junit.jupiter.api.Test;

/** The sim backend through the public entry points. */
class BackendsTest {
    @Test
    void simIsFoundByNameAndIsTheDefault() {
        Backend sim = Backends.get("sim");
        assertInstanceOf(SimBackend.class, sim);
        assertTrue(sim.availability().isAvailable());
        if (System.getenv(Backends.ENVIRONMENT_VARIABLE) == null) {
            assertInstanceOf(SimBackend.class, Backends.fromEnvironment());
        }
        try (LocalCluster cluster = sim.local(3)) {
            assertEquals(3, cluster.size());
            cluster.run(ctx -> {
                assertEquals(3, ctx.size());
                assertEquals(ctx.rank(), ctx.comm().rank());
                assertEquals("sim", ctx.comm().backendName());
                assertEquals(3, ctx.comm().topology().ranksPerNode());
                assertEquals("2.28.9", ctx.comm().capabilities().libraryVersion());
            });
        }
    }

    @Test
    void anUnknownBackendNamesTheAvailableOnes() {
        CollectivesException e = assertThrows(CollectivesException.class, () -> Backends.get("nope"));
        assertContains(e.getMessage(), "unknown backend 'nope'", "sim");
    }

    @Test
    void clusterConfigurationIsValidated() {
        assertThrows(IllegalArgumentException.class, () -> SimBackend.cluster().ranks(0));
        assertThrows(IllegalArgumentException.class, () -> SimBackend.cluster().granularity(3000));
        assertThrows(IllegalArgumentException.class, () -> SimBackend.cluster().timeout(java.time.Duration.ZERO));
        SimConfig config = SimBackend.cluster()
                .ranks(4)
                .ranksPerNode(1)
                .ibSharp(true)
                .mtlinkSharp(true)
                .libraryVersion("2.29.2")
                .config();
        assertEquals(1, config.ranksPerNode());
        assertTrue(config.capabilities().ibSharp() && config.capabilities().mtlinkSharp());
        assertEquals("2.29.2", config.capabilities().libraryVersion());
    }
}
