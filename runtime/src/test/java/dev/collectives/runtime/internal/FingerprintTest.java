package dev.collectives.runtime.internal;

import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.backend.sim.PerRank;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Fingerprint#exchange} and {@link Agreement#agree} over a sim communicator: the bind-time check of R14, R1
 * and R2, and a failure of one rank reaching every rank.
 */
class FingerprintTest {
    /** How an R2 disagreement shows each rank's head offset. */
    private static final String FROM_HEAD = " bytes from its allocation's head";

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
            Throwable[] f = failures(
                    cluster, ctx -> fingerprint(ctx.rank() == 0 ? 1024 : 512, 0).exchange(ctx.comm(), ctx.stream()));
            for (Throwable t : f) {
                // Fingerprint reports the difference as a whole-communicator violation (no rank prefix)
                assertTrue(t.getMessage().startsWith(Rule.R14_SHAPE.tag()), t.getMessage());
                PerRank.assertContains(
                        t.getMessage(), "'op 0' differs", "rank 0: allReduce 1024", "rank 1: allReduce 512");
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void r2ADifferentHeadOffsetFailsEveryRankWithItsRule() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f =
                    failures(cluster, ctx -> fingerprint(1024, 64L * ctx.rank()).exchange(ctx.comm(), ctx.stream()));
            for (Throwable t : f) {
                assertTrue(t.getMessage().startsWith(Rule.R2_OFFSET.tag()), t.getMessage());
                PerRank.assertContains(
                        t.getMessage(),
                        "'sendbuff offset' differs",
                        "rank 0: 0 bytes from its allocation's head; rank 1: 64 bytes from its allocation's head",
                        "at different offsets from their allocation's head");
                assertFalse(t.getMessage().contains("different pipelines"), t.getMessage());
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "GRAPH, false, true",
        "GRAPH, true, true",
        "LOCAL, true, true",
        "LOCAL, false, false",
        "NONE, true, false",
        "NONE, false, false"
    })
    void r2HeadOffsetsOfExternalsMatterForGraphAndMtlinkSharpLocalRegistrationOnly(
            Registration registration, boolean mtlinkSharp, boolean offsetsMatter) {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(3).mtlinkSharp(mtlinkSharp).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer block = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 64)) {
                    DeviceBuffer external = block.slice(8L * ctx.rank(), 16);
                    Fingerprint.builder("Pipeline")
                            .add("registration", registration)
                            .headOffset(ctx.comm(), registration, "external input head offset", external)
                            .build()
                            .exchange(ctx.comm(), ctx.stream());
                }
            });
            for (Throwable t : f) {
                if (offsetsMatter) {
                    assertTrue(t.getMessage().startsWith(Rule.R2_OFFSET.tag()), t.getMessage());
                    PerRank.assertContains(
                            t.getMessage(),
                            "'external input head offset' differs",
                            "rank 0: 0" + FROM_HEAD + "; rank 1: 32" + FROM_HEAD + "; rank 2: 64" + FROM_HEAD);
                } else {
                    assertNull(t);
                }
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void aFailureOfOneRankBeforeItsFingerprintFailsEveryRankAtOnceWithItsReason(int ranks) {
        int failing = ranks - 1;
        try (SimCluster cluster = SimBackend.cluster()
                .ranks(ranks)
                .timeout(Duration.ofSeconds(60))
                .build()) {
            // a hang guard only; "at once" is what the ranks say: had the failing rank skipped the exchange, the
            // others would fail at the sim's timeout with that timeout, not with its reason
            Throwable[] f = assertTimeoutPreemptively(
                    Duration.ofMinutes(2),
                    () -> failures(
                            cluster,
                            ctx -> Agreement.agree(ctx.comm(), ctx.stream(), () -> {
                                if (ctx.rank() == failing) {
                                    throw CollectivesException.violation(
                                            Rule.R13_TYPES,
                                            ctx.rank(),
                                            "Pipeline: external buffer `input` must hold at least 1024 x FLOAT32");
                                }
                                return fingerprint(1024, 0);
                            })));
            for (int r = 0; r < ranks; r++) {
                CollectivesException e = PerRank.assertCollectivesException(f, r);
                assertEquals(Rule.R13_TYPES, e.rule(), e.getMessage());
                assertEquals(r, e.rank());
                assertTrue(e.getMessage().startsWith(Rule.R13_TYPES.tag() + " rank " + r + ": "), e.getMessage());
                PerRank.assertContains(e.getMessage(), "external buffer `input` must hold at least 1024 x FLOAT32");
                if (r != failing) {
                    PerRank.assertContains(
                            e.getMessage(),
                            "rank " + failing + " could not bind: rank " + failing + ": Pipeline: external buffer");
                } else {
                    // the exchange it took part in with its failure did not time out either
                    assertEquals(0, e.getSuppressed().length, () -> Arrays.toString(e.getSuppressed()));
                }
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void anOutcomeAgreementPassesWhenEveryRankPreparedAndFailsEveryRankWithTheReasonOfOneThatDidNot() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            Throwable[] passed = failures(cluster, ctx -> Agreement.agreeOnOutcome(ctx.comm(), ctx.stream(), () -> {}));
            for (Throwable t : passed) {
                assertNull(t);
            }
            Throwable[] f = failures(
                    cluster,
                    ctx -> Agreement.agreeOnOutcome(ctx.comm(), ctx.stream(), () -> {
                        if (ctx.rank() == 2) {
                            throw CollectivesException.violation(Rule.R7_ARENA, 2, "an op reaches past `grads`");
                        }
                    }));
            for (int r = 0; r < 3; r++) {
                CollectivesException e = PerRank.assertCollectivesException(f, r);
                assertEquals(Rule.R7_ARENA, e.rule(), e.getMessage());
                PerRank.assertContains(e.getMessage(), "an op reaches past `grads`");
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void whenSeveralRanksFailTheLowestOnesReasonIsReportedAndEachKeepsItsOwn() {
        try (SimCluster cluster = SimBackend.cluster().ranks(4).build()) {
            Throwable[] f = failures(
                    cluster,
                    ctx -> Agreement.agree(ctx.comm(), ctx.stream(), () -> {
                        if (ctx.rank() == 1) {
                            throw new IllegalStateException("out of device memory on rank 1");
                        }
                        if (ctx.rank() == 3) {
                            throw CollectivesException.usage(ctx.rank(), "rank 3's own problem");
                        }
                        return fingerprint(ctx.rank() == 2 ? 512 : 1024, 0);
                    }));
            assertInstanceOf(IllegalStateException.class, f[1]);
            PerRank.assertContains(f[3].getMessage(), "rank 3's own problem");
            for (int r : new int[] {0, 2}) {
                CollectivesException e = PerRank.assertCollectivesException(f, r);
                assertNull(e.rule());
                PerRank.assertContains(
                        e.getMessage(),
                        "rank " + r + ": rank 1 could not bind: "
                                + "java.lang.IllegalStateException: out of device memory on rank 1");
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    private static Fingerprint fingerprint(long count, long offset) {
        return Fingerprint.builder("Pipeline")
                .add("op 0", "allReduce " + count)
                .add(Rule.R2_OFFSET, "sendbuff offset", offset)
                .build();
    }
}
