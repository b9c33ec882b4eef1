package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.External;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.View;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Views into an {@code @External} (R13): the external given at bind holds its declared count and type, checked
 * before any view is laid out in it, and a view sized by dims stays within the external's declared size.
 */
class ExternalViewsTest {
    /** Sums the second half of the external in place. */
    @CollectivePipeline(registration = Registration.NONE)
    interface HalfOfExternal {
        @External(type = DataType.FLOAT32, count = 16)
        DeviceBuffer given();

        @View(of = "given", offsetBytes = 32, type = DataType.FLOAT32, count = 8)
        DeviceBuffer back();

        @AllReduce(send = "back", recv = "back", count = 8)
        void sum();
    }

    /** A view as long as {@code part}, of an external as long as {@code elements}: bind compares the two. */
    @CollectivePipeline(registration = Registration.NONE)
    interface PartOfExternal {
        @Dim
        long elements();

        @Dim
        long part();

        @External(type = DataType.FLOAT32, countExpr = "elements")
        DeviceBuffer given();

        @View(of = "given", type = DataType.FLOAT32, countExpr = "part")
        DeviceBuffer front();

        @AllReduce(send = "front", recv = "front", countExpr = "part")
        void sum();
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void anExternalTooSmallForItsViewFailsEveryRankWithR13BeforeTheViewIsLaidOut(int ranks) {
        int small = ranks - 1;
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(ranks);
        Ranks.run(ranks, rank -> {
            try (DeviceBuffer given =
                    rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, rank.rank() == small ? 12 : 16)) {
                failures.set(
                        rank.rank(),
                        assertThrows(
                                CollectivesException.class,
                                () -> CollectiveExternalViewsTest_HalfOfExternal.bind(
                                        rank.comm(), rank.stream(), given)));
            }
        });
        for (int r = 0; r < ranks; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R13_TYPES, e.rule(), e.getMessage());
            assertTrue(
                    e.getMessage().contains("external buffer `given` must hold at least 16 x FLOAT32"), e.getMessage());
        }
    }

    @Test
    void aViewWithinItsExternalSumsItsPart() {
        Ranks.run(2, rank -> {
            try (DeviceBuffer given = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 16)) {
                given.copyFromHost(Ranks.filled(16, rank.rank() + 1));
                try (var p = CollectiveExternalViewsTest_HalfOfExternal.bind(rank.comm(), rank.stream(), given)) {
                    p.sum();
                    rank.stream().synchronize();
                    float[] expected = Ranks.filled(16, rank.rank() + 1);
                    java.util.Arrays.fill(expected, 8, 16, 3);
                    assertFloats(expected, given, "given");
                }
            }
        });
    }

    @Test
    void aViewSizedByDimsPastItsExternalsDeclaredSizeFailsAtBindWithR13() {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(2);
        Ranks.run(2, rank -> {
            try (DeviceBuffer given = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 32)) {
                failures.set(
                        rank.rank(),
                        assertThrows(
                                CollectivesException.class,
                                () -> CollectiveExternalViewsTest_PartOfExternal.binder(rank.comm(), rank.stream())
                                        .elements(8)
                                        .part(16)
                                        .given(given)
                                        .bind()));
            }
        });
        for (int r = 0; r < 2; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R13_TYPES, e.rule(), e.getMessage());
            assertTrue(
                    e.getMessage().contains("@View front() lies within the declared size of external `given`"),
                    e.getMessage());
        }
    }
}
