package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.backend.sim.SimConfig;
import dev.collectives.backend.sim.SimForeignMemory;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Externals wrapped from a framework's memory ({@code comm.wrap}) meet the same bind checks as owned ones: R2 on
 * their offset from the allocation the driver reports, R3, R9 and R11 on the class of memory found.
 */
class WrappedExternalsTest {
    private static final long GRANULARITY = 2L << 20;
    private static final float[] SUM_OF_TWO_RAMPS = {100, 102, 104, 106, 108, 110, 112, 114};

    /**
     * Binds {@code WithExternal} on 2 ranks (with MTLink SHARP, under which its local registration needs equal head
     * offsets, R2) to framework memory made per rank; returns what each bind threw.
     */
    private static AtomicReferenceArray<CollectivesException> bindFailures(
            IntFunction<SimForeignMemory> memory, long offsetOfRank1) {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(2);
        try (LocalCluster cluster =
                SimConfig.builder().ranks(2).mtlinkSharp(true).build()) {
            cluster.run(rank -> {
                try (SimForeignMemory owned = memory.apply(rank.rank())) {
                    DeviceBuffer given =
                            rank.comm().wrap(owned.address() + rank.rank() * offsetOfRank1, 32, DataType.FLOAT32);
                    failures.set(
                            rank.rank(),
                            assertThrows(
                                    CollectivesException.class,
                                    () -> CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), given)
                                            .close()));
                }
            });
        }
        return failures;
    }

    @Test
    void qualifiedVmmMemoryBindsRunsAndIsNamedInDescribe() {
        Ranks.run(2, rank -> {
            try (SimForeignMemory owned =
                    SimForeignMemory.vmm(rank.rank(), 4096, GRANULARITY, HandleType.POSIX_FILE_DESCRIPTOR)) {
                DeviceBuffer given = rank.comm().wrap(owned.address() + 64, 32, DataType.FLOAT32);
                given.copyFromHost(Ranks.ramp(rank.rank(), 8));
                try (var p = CollectiveOpPipelines_WithExternal.bind(rank.comm(), rank.stream(), given)) {
                    p.sum();
                    rank.stream().record().await(java.time.Duration.ofSeconds(20));
                    assertFloats(SUM_OF_TWO_RAMPS, p.result(), "result");
                    assertTrue(
                            p.describe()
                                    .contains(
                                            "external given: foreign, VMM with POSIX fd, 64 bytes from its allocation's head"),
                            p.describe());
                }
            }
        });
    }

    @Test
    void r2WrappedMemoryAtDifferentOffsetsFromItsHead() {
        AtomicReferenceArray<CollectivesException> failures = bindFailures(
                rank -> SimForeignMemory.vmm(rank, 4096, GRANULARITY, HandleType.POSIX_FILE_DESCRIPTOR), 128);
        for (int r = 0; r < 2; r++) {
            assertEquals(Rule.R2_OFFSET, failures.get(r).rule(), failures.get(r).getMessage());
            assertTrue(
                    failures.get(r)
                            .getMessage()
                            .contains("rank 0: 0 bytes from its allocation's head; "
                                    + "rank 1: 128 bytes from its allocation's head"),
                    failures.get(r).getMessage());
        }
    }

    @Test
    void r11WrappedVmmMemoryWithoutShareableHandles() {
        AtomicReferenceArray<CollectivesException> failures =
                bindFailures(rank -> SimForeignMemory.vmm(rank, 4096, GRANULARITY), 0);
        for (int r = 0; r < 2; r++) {
            assertEquals(
                    Rule.R11_ALLOCATOR, failures.get(r).rule(), failures.get(r).getMessage());
            assertTrue(
                    failures.get(r)
                            .getMessage()
                            .contains("external buffer `given` (foreign, VMM without shareable handles)"),
                    failures.get(r).getMessage());
        }
    }

    @Test
    void r9WrappedLegacyMemoryInAPipelineThatDidNotOptIn() {
        AtomicReferenceArray<CollectivesException> failures =
                bindFailures(rank -> SimForeignMemory.deviceMalloc(rank, 4096), 0);
        for (int r = 0; r < 2; r++) {
            assertEquals(Rule.R9_LEGACY, failures.get(r).rule(), failures.get(r).getMessage());
            assertTrue(
                    failures.get(r).getMessage().contains("allowLegacyRegistration = true"),
                    failures.get(r).getMessage());
        }
    }

    @Test
    void r3MtlinkSharpRefusesWrappedLegacyMemory() {
        Ranks.run(1, rank -> {
            try (SimForeignMemory owned = SimForeignMemory.deviceMalloc(0, 4096)) {
                DeviceBuffer given = rank.comm().wrap(owned.address(), 32, DataType.FLOAT32);
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> CollectiveOpPipelines_MtlinkSharp.bind(rank.comm(), rank.stream(), given)
                                .close());
                assertEquals(Rule.R3_MTLS_ALLOC, e.rule(), e.getMessage());
                assertTrue(e.getMessage().contains("foreign, legacy {cuda,musa}Malloc"), e.getMessage());
            }
        });
    }
}
