package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.backend.sim.SimConfig;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the generated bind checks at run time: the same pipeline on every rank (R14, R2), R8, R9, R12 windows. A
 * failed bind must release what it made: closing each cluster checks it, as the sim's communicators refuse to
 * close while memory, registrations or windows are live.
 */
class BindRulesTest {
    /** What summing {@code Ranks.ramp(rank, 8)} over 2 ranks gives. */
    private static final float[] SUM_OF_TWO_RAMPS = {100, 102, 104, 106, 108, 110, 112, 114};

    /** Runs {@code bind} on every rank and returns what each rank's bind threw (every rank must throw). */
    private static AtomicReferenceArray<CollectivesException> bindFailures(int ranks, LocalCluster.RankBody bind) {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(ranks);
        Ranks.run(
                ranks,
                rank -> failures.set(rank.rank(), assertThrows(CollectivesException.class, () -> bind.run(rank))));
        return failures;
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void r14DifferentPipelinesFailOnEveryRankNamingTheDifference(int ranks) {
        AtomicReferenceArray<CollectivesException> failures = bindFailures(ranks, rank -> {
            if (rank.rank() == 1) {
                CollectiveSeedPipelines_Arena.bind(rank.comm(), rank.stream()).close();
            } else {
                CollectiveSeedPipelines_Local.bind(rank.comm(), rank.stream()).close();
            }
        });
        for (int r = 0; r < ranks; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R14_SHAPE, e.rule(), e.getMessage());
            assertTrue(e.getMessage().startsWith("[R14 SHAPE]"), e.getMessage());
            assertTrue(e.getMessage().contains("different pipelines"), e.getMessage());
            assertTrue(
                    e.getMessage().contains("SeedPipelines.Arena")
                            && e.getMessage().contains("SeedPipelines.Local"),
                    e.getMessage());
        }
    }

    @Test
    void r2ExternalHeadOffsetsDifferAcrossRanksUnderMtlinkSharpLocalRegistration() {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(2);
        try (LocalCluster cluster =
                SimConfig.builder().ranks(2).mtlinkSharp(true).build()) {
            cluster.run(rank -> {
                try (DeviceBuffer block = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 64)) {
                    DeviceBuffer given = block.slice(rank.rank() * 16L, 8); // rank 0 at byte 0, rank 1 at byte 64
                    failures.set(
                            rank.rank(),
                            assertThrows(
                                    CollectivesException.class,
                                    () -> CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), given)));
                }
            });
        }
        for (int r = 0; r < 2; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R2_OFFSET, e.rule(), e.getMessage());
            assertTrue(e.getMessage().contains("external given head offset"), e.getMessage());
            assertTrue(
                    e.getMessage()
                            .contains("rank 0: 0 bytes from its allocation's head; "
                                    + "rank 1: 64 bytes from its allocation's head"),
                    e.getMessage());
            assertTrue(
                    e.getMessage()
                            .contains("ranks passed dev.collectives.examples.e2e.OpPipelines.WithExternal "
                                    + "buffers at different offsets from their allocation's head"),
                    e.getMessage());
            assertFalse(e.getMessage().contains("different pipelines"), e.getMessage());
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4})
    void r2ExternalsAtDifferentHeadOffsetsBindWithoutRegistrationAndUnderGeneralLocalRegistration(int ranks) {
        float[] expected = new float[8];
        for (int r = 0; r < ranks; r++) {
            float[] ramp = Ranks.ramp(r, 8);
            for (int i = 0; i < 8; i++) {
                expected[i] += ramp[i];
            }
        }
        Ranks.run(ranks, rank -> {
            try (DeviceBuffer block = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 64)) {
                DeviceBuffer given = block.slice(rank.rank() * 8L, 8); // each rank at another head offset
                given.copyFromHost(Ranks.ramp(rank.rank(), 8));
                try (var p = CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), given)) {
                    p.sum();
                    rank.stream().synchronize();
                    assertFloats(expected, p.result(), "result (LOCAL, general registration)");
                }
                try (var p = CollectiveOpPipelines_BroadcastIntoExternal.bind(rank.comm(), rank.stream(), given)) {
                    p.source().copyFromHost(Ranks.ramp(rank.rank(), 8));
                    p.share();
                    rank.stream().synchronize();
                    assertFloats(Ranks.ramp(0, 8), given, "target (NONE)");
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4})
    void anUndersizedExternalOnOneRankFailsEveryRankAtOnceWithThatRanksReason(int ranks) {
        int undersized = ranks - 1;
        // a hang guard only; "at once" is the others' message: waiting out the sim's timeout (a minute) in an
        // exchange the failing rank skipped would fail them with that timeout, not with the failing rank's reason
        AtomicReferenceArray<CollectivesException> failures = assertTimeoutPreemptively(
                Duration.ofMinutes(2),
                () -> bindFailures(ranks, rank -> {
                    long count = rank.rank() == undersized ? 4 : 8;
                    try (DeviceBuffer given = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, count)) {
                        CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), given)
                                .close();
                    }
                }));
        for (int r = 0; r < ranks; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R13_TYPES, e.rule(), e.getMessage());
            assertTrue(e.getMessage().startsWith("[R13 TYPES] rank " + r + ": "), e.getMessage());
            assertTrue(
                    e.getMessage().contains("external buffer `given` must hold at least 8 x FLOAT32"), e.getMessage());
            if (r != undersized) {
                assertTrue(e.getMessage().contains("rank " + undersized + " could not bind"), e.getMessage());
            }
        }
    }

    @Test
    void aLegacyRuleCheckedOnOneRankOnlyFailsEveryRank() {
        AtomicReferenceArray<CollectivesException> failures = bindFailures(3, rank -> {
            // rank 1 passes legacy memory to an external whose registration needs the opt-in (R9)
            Allocator allocator = rank.rank() == 1 ? Allocator.LEGACY : Allocator.MEM_ALLOC;
            try (DeviceBuffer given = rank.comm().allocate(allocator, DataType.FLOAT32, 8)) {
                CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), given)
                        .close();
            }
        });
        for (int r = 0; r < 3; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R9_LEGACY, e.rule(), e.getMessage());
            assertTrue(e.getMessage().contains("external buffer `given`"), e.getMessage());
        }
    }

    @Test
    void describeWorksAfterCloseForAPipelineWithAWindow() {
        Ranks.run(2, rank -> {
            var p = CollectiveOpPipelines_Unregistered.bind(rank.comm(), rank.stream());
            p.close();
            assertTrue(
                    p.describe()
                            .contains("window shared (symmetric): helpers (R10) not known: the window was "
                                    + "deregistered when the pipeline closed"),
                    p.describe());
            assertTrue(p.describe().contains("average()"), p.describe());
        });
    }

    @Test
    void externalBufferWithTheSameHeadOffsetWorks() {
        Ranks.run(2, rank -> {
            try (DeviceBuffer block = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 64)) {
                DeviceBuffer given = block.slice(16, 8);
                given.copyFromHost(Ranks.ramp(rank.rank(), 8));
                try (var p = CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), given)) {
                    p.sum();
                    rank.stream().synchronize();
                    assertFloats(SUM_OF_TWO_RAMPS, p.result(), "result");
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {4, 8})
    void r7RangesThatDependOnTheNumberOfRanksAreCheckedAtBind(int ranks) {
        if (ranks <= 4) {
            Ranks.run(
                    ranks,
                    rank -> CollectiveOpPipelines_GatherInBlock.bind(rank.comm(), rank.stream())
                            .close());
            return;
        }
        AtomicReferenceArray<CollectivesException> failures = bindFailures(
                ranks,
                rank -> CollectiveOpPipelines_GatherInBlock.bind(rank.comm(), rank.stream())
                        .close());
        for (int r = 0; r < ranks; r++) {
            assertEquals(Rule.R7_ARENA, failures.get(r).rule(), failures.get(r).getMessage());
            assertTrue(
                    failures.get(r)
                            .getMessage()
                            .contains("@AllGather #1: send bytes [128, 160) and recv bytes " + "[0, 256) overlap"),
                    failures.get(r).getMessage());
        }
    }

    @Test
    void r7TwoExternalsGivenOverlappingRangesOfOneTensorFailAtBind() {
        Ranks.run(1, rank -> {
            try (DeviceBuffer tensor = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 12)) {
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> CollectiveOpPipelines_TwoExternals.bind(
                                rank.comm(), rank.stream(), tensor.slice(0, 8), tensor.slice(4, 8)));
                assertEquals(Rule.R7_ARENA, e.rule(), e.getMessage());
                assertTrue(e.getMessage().contains("overlap without coinciding"), e.getMessage());
                CollectiveOpPipelines_TwoExternals.bind(
                                rank.comm(), rank.stream(), tensor.slice(0, 8), tensor.slice(0, 8))
                        .close(); // in place is fine
            }
        });
    }

    @Test
    void r13ExternalOfTheWrongType() {
        Ranks.run(1, rank -> {
            try (DeviceBuffer ints = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.INT32, 8)) {
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), ints));
                assertEquals(Rule.R13_TYPES, e.rule());
                assertTrue(
                        e.getMessage().contains("external buffer `given` must hold at least 8 x FLOAT32"),
                        e.getMessage());
            }
        });
    }

    @Test
    void r8IbSharpNeedsOneRankPerNode() {
        try (LocalCluster cluster =
                SimConfig.builder().ranks(2).ranksPerNode(2).ibSharp(true).build()) {
            cluster.run(rank -> {
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> CollectiveOpPipelines_IbSharp.bind(rank.comm(), rank.stream()));
                assertEquals(Rule.R8_IB_SHARP, e.rule());
                assertTrue(
                        e.getMessage().contains("needs 1 rank per node; this communicator has 2 ranks, 2 per node"),
                        e.getMessage());
            });
        }
        try (LocalCluster cluster =
                SimConfig.builder().ranks(2).ranksPerNode(1).ibSharp(true).build()) {
            cluster.run(rank -> {
                try (var p = CollectiveOpPipelines_IbSharp.bind(rank.comm(), rank.stream())) {
                    assertTrue(p.describe().contains("IB SHARP: registered once at bind"), p.describe());
                }
            });
        }
    }

    @Test
    void r9LegacyRegistrationNeedsTheVariable() {
        try (LocalCluster cluster = SimConfig.builder()
                .ranks(2)
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, "0")
                .build()) {
            cluster.run(rank -> {
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> CollectiveOpPipelines_Legacy.bind(rank.comm(), rank.stream()));
                assertEquals(Rule.R9_LEGACY, e.rule());
                assertTrue(
                        e.getMessage()
                                .contains("`a` comes from the legacy allocator; registering it needs "
                                        + "MCCL_LEGACY_MUSA_REGISTER=1, which is '0'"),
                        e.getMessage());
            });
        }
        try (LocalCluster cluster = SimConfig.builder()
                .ranks(2)
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, "1")
                .build()) {
            cluster.run(rank -> {
                try (var p = CollectiveOpPipelines_Legacy.bind(rank.comm(), rank.stream())) {
                    p.a().copyFromHost(Ranks.ramp(rank.rank(), 8));
                    p.sum();
                    rank.stream().synchronize();
                    assertFloats(SUM_OF_TWO_RAMPS, p.b(), "b");
                }
            });
        }
    }

    @Test
    void r9IbSharpRegistersLegacyMemoryWithoutTheVariableAtOneRankPerNode() {
        try (LocalCluster cluster = SimConfig.builder()
                .ranks(2)
                .ranksPerNode(1)
                .ibSharp(true)
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, null)
                .build()) {
            cluster.run(rank -> {
                try (var p = CollectiveOpPipelines_IbSharpLegacy.bind(rank.comm(), rank.stream())) {
                    p.a().copyFromHost(Ranks.ramp(rank.rank(), 8));
                    p.sum();
                    rank.stream().synchronize();
                    assertFloats(SUM_OF_TWO_RAMPS, p.b(), "b");
                    assertTrue(p.describe().contains("IB SHARP: registered once at bind"), p.describe());
                }
            });
        }
    }

    @Test
    void r9IbSharpNotEnabledLeavesLegacyMemoryNeedingTheVariable() {
        try (LocalCluster cluster = SimConfig.builder()
                .ranks(2)
                .ranksPerNode(1)
                .ibSharp(false)
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, null)
                .build()) {
            cluster.run(rank -> {
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> CollectiveOpPipelines_IbSharpLegacy.bind(rank.comm(), rank.stream()));
                assertEquals(Rule.R9_LEGACY, e.rule(), e.getMessage());
                assertTrue(
                        e.getMessage()
                                .contains("`a` comes from the legacy allocator; registering it needs "
                                        + "MCCL_LEGACY_MUSA_REGISTER=1, which is unset"),
                        e.getMessage());
                assertTrue(
                        e.getMessage()
                                .contains("IB SHARP registration, which takes any allocator but is not "
                                        + "enabled on this communicator"),
                        e.getMessage());
            });
        }
    }

    @ParameterizedTest(name = "fabric handles: {0}")
    @ValueSource(booleans = {false, true})
    void mtlinkSharpWithQualifiedMemory(boolean fabric) {
        try (LocalCluster cluster = SimConfig.builder()
                .ranks(2)
                .mtlinkSharp(true)
                .fabricHandles(fabric)
                .build()) {
            cluster.run(rank -> {
                try (DeviceBuffer c = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 8);
                        var p = CollectiveOpPipelines_MtlinkSharp.bind(rank.comm(), rank.stream(), c)) {
                    p.a().copyFromHost(Ranks.ramp(rank.rank(), 8));
                    p.step();
                    rank.stream().synchronize();
                    assertFloats(SUM_OF_TWO_RAMPS, p.c(), "c");
                    assertTrue(p.describe().contains("MTLink SHARP: registered once at bind"), p.describe());
                }
            });
        }
    }

    @Test
    void r3ExternalLegacyMemoryUnderMtlinkSharp() {
        try (LocalCluster cluster =
                SimConfig.builder().ranks(2).mtlinkSharp(true).build()) {
            cluster.run(rank -> {
                try (DeviceBuffer legacy = rank.comm().allocate(Allocator.LEGACY, DataType.FLOAT32, 8)) {
                    CollectivesException e = assertThrows(
                            CollectivesException.class,
                            () -> CollectiveOpPipelines_MtlinkSharp.bind(rank.comm(), rank.stream(), legacy));
                    assertEquals(Rule.R3_MTLS_ALLOC, e.rule(), e.getMessage());
                    assertTrue(
                            e.getMessage()
                                    .contains("MTLink SHARP registration needs {nccl,mccl}MemAlloc or "
                                            + "qualified VMM memory; external `c` is"),
                            e.getMessage());
                }
            });
        }
    }

    @Test
    void r10WindowHelpersAreReportedByDescribe() {
        try (LocalCluster cluster =
                SimConfig.builder().ranks(2).windowHelpers(false).build()) {
            cluster.run(rank -> {
                try (var p = CollectiveOpPipelines_Unregistered.bind(rank.comm(), rank.stream())) {
                    assertTrue(p.describe().contains("window shared (symmetric): helpers (R10) missing"), p.describe());
                    assertTrue(p.describe().contains("none: Registration.NONE"), p.describe());
                }
            });
        }
        Ranks.run(2, rank -> {
            try (var p = CollectiveOpPipelines_Unregistered.bind(rank.comm(), rank.stream())) {
                assertTrue(p.describe().contains("window shared (symmetric): helpers (R10) available"), p.describe());
                assertEquals(
                        p.shared().address(), p.sharedWindow().userPointer().orElseThrow());
            }
        });
    }
}
