package dev.collectives.runtime.internal;

import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Communicator;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * On a communicator whose other ranks may not run this library, the checks across ranks are off: bind's agreement
 * and the per-call check run no collective (a rank of another library would never call it), bind still checks what
 * each rank can alone, and {@code describe()} says why. On sim, with a communicator that says so as a unique id's or
 * a wrapped handle's does; where every rank runs this library, the same calls check across ranks over the
 * communicator.
 */
class ForeignPeersTest {
    private static final String WHY = "the communicator was formed from a unique id made elsewhere";

    @Test
    void bindsAgreementRunsNoCollectiveWhereCheckingAcrossRanksIsOff() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            // only rank 0 takes part, with a fingerprint rank 1 would not share: a collective would wait for rank 1
            Throwable[] f = failures(cluster, ctx -> {
                if (ctx.rank() == 0) {
                    Communicator comm = checksOff(ctx.comm());
                    fingerprint(1024).exchange(comm, ctx.stream());
                    Agreement.agree(comm, ctx.stream(), () -> fingerprint(512));
                    Agreement.agreeOnOutcome(comm, ctx.stream(), () -> {});
                }
            });
            assertNull(f[0]);
            assertNull(f[1]);
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void aRuleThisRankChecksAloneStillFailsBind() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            IllegalStateException local = new IllegalStateException("[R7 ARENA] this rank's own check");
            Throwable[] f = failures(cluster, ctx -> {
                if (ctx.rank() == 1) {
                    Agreement.agree(checksOff(ctx.comm()), ctx.stream(), () -> {
                        throw local;
                    });
                }
            });
            assertNull(f[0]);
            assertSame(local, f[1]);
        }
    }

    @Test
    void stepArgumentsAreNotCheckedAcrossRanksWhereThatIsOff() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                if (ctx.rank() == 0) {
                    try (CallCheck check = new CallCheck(checksOff(ctx.comm()), ctx.stream(), "Buckets")) {
                        check.agree("bucket", "@AllReduce", 0, 1024);
                    }
                }
            });
            assertNull(f[0]);
            assertNull(f[1]);
        }
    }

    @Test
    void whereEveryRankRunsThisLibraryTheAgreementRunsOverTheCommunicator() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(
                    cluster, ctx -> fingerprint(ctx.rank() == 0 ? 1024 : 512).exchange(ctx.comm(), ctx.stream()));
            for (Throwable t : f) {
                assertTrue(t.getMessage().startsWith(Rule.R14_SHAPE.tag()), t.getMessage());
            }
        }
    }

    @Test
    void describeSaysWhyTheChecksAcrossRanksAreOff() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                String[][] ops = {{"step", "@AllReduce #1", "in -> out", "0 -> 0", "4", "general"}};
                String off = DescribeTable.describe(checksOff(ctx.comm()), "Pipeline", ops);
                String on = DescribeTable.describe(ctx.comm(), "Pipeline", ops);
                assertTrue(
                        off.endsWith("checks across ranks (the fingerprint: R14, R1, R2; step arguments) are off: "
                                + WHY + "\n"),
                        off);
                assertEquals(on, off.substring(0, on.length()));
                assertFalse(on.contains("checks across ranks"), on);
            });
            assertNull(f[0]);
        }
    }

    @Test
    void aCommunicatorOfThisLibraryChecksAcrossRanks() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            Throwable[] f = failures(
                    cluster, ctx -> assertEquals(Optional.empty(), ctx.comm().crossRankChecksOff()));
            assertNull(f[0]);
        }
    }

    private static Fingerprint fingerprint(long count) {
        return Fingerprint.builder("Pipeline").add("op 0", "allReduce " + count).build();
    }

    /** {@code comm}, saying that its checks across ranks are off, as a communicator formed elsewhere does. */
    private static Communicator checksOff(Communicator comm) {
        return (Communicator) Proxy.newProxyInstance(
                Communicator.class.getClassLoader(), new Class<?>[] {Communicator.class}, (proxy, method, args) -> {
                    if (method.getName().equals("crossRankChecksOff")) {
                        return Optional.of(WHY);
                    }
                    try {
                        return method.invoke(comm, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
