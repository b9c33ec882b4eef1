package dev.collectives.backend.sim;

import dev.collectives.runtime.Fingerprint;
import dev.collectives.runtime.Rule;

import org.junit.jupiter.api.Test;

import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Fingerprint#exchange} over a sim communicator: the bind-time check of R14, R1 and R2. */
class FingerprintTest {
    @Test
    void equalFingerprintsPass() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            Throwable[] f = failures(cluster, ctx -> fingerprint(1024, 0).exchange(ctx.comm(), ctx.stream()));
            for (Throwable t : f) {
                assertNull(t);
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void r14ADifferentCountFailsEveryRankNamingTheEntry() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx ->
                    fingerprint(ctx.rank() == 0 ? 1024 : 512, 0).exchange(ctx.comm(), ctx.stream()));
            for (Throwable t : f) {
                // Fingerprint reports the difference as a whole-communicator violation (no rank prefix)
                assertTrue(t.getMessage().startsWith(Rule.R14_SHAPE.tag()), t.getMessage());
                PerRank.assertContains(t.getMessage(), "'op 0' differs", "rank 0: allReduce 1024",
                        "rank 1: allReduce 512");
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void r2ADifferentHeadOffsetFailsEveryRankWithItsRule() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx ->
                    fingerprint(1024, 64L * ctx.rank()).exchange(ctx.comm(), ctx.stream()));
            for (Throwable t : f) {
                assertTrue(t.getMessage().startsWith(Rule.R2_OFFSET.tag()), t.getMessage());
                PerRank.assertContains(t.getMessage(), "'sendbuff offset' differs", "rank 0: [R2 OFFSET] 0",
                        "rank 1: [R2 OFFSET] 64");
            }
        }
    }

    private static Fingerprint fingerprint(long count, long offset) {
        return Fingerprint.builder("Pipeline")
                .add("op 0", "allReduce " + count)
                .add(Rule.R2_OFFSET, "sendbuff offset", offset)
                .build();
    }

}
