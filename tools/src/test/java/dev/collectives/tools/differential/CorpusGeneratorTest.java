package dev.collectives.tools.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.OpKind.Extent;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.tools.differential.PipelineSpec.Accessor;
import dev.collectives.tools.differential.PipelineSpec.AccessorKind;
import dev.collectives.tools.differential.PipelineSpec.Call;
import dev.collectives.tools.differential.PipelineSpec.Op;
import dev.collectives.tools.differential.PipelineSpec.Side;
import dev.collectives.tools.differential.PipelineSpec.Step;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The corpus the harness runs by default (300 pipelines of seed 1) covers the DSL's grammar, and every pipeline keeps
 * the promise the comparison rests on: each op's ranges lie in their buffers and apart from every other op's of the
 * step, at every rank count from 2 to 8 and for every call's arguments.
 */
class CorpusGeneratorTest {
    private static final List<PipelineSpec> CORPUS = CorpusGenerator.corpus(1, 300, Corpus.MAX_COUNT);

    private static List<Op> ops() {
        return CORPUS.stream()
                .flatMap(p -> p.steps().stream())
                .flatMap(s -> s.ops().stream())
                .toList();
    }

    private static boolean any(Predicate<PipelineSpec> pipeline) {
        return CORPUS.stream().anyMatch(pipeline);
    }

    @Test
    void everyOpOfTheCatalogueIsDrawn() {
        Set<OpKind> missing = EnumSet.allOf(OpKind.class);
        ops().forEach(op -> missing.remove(op.kind()));
        assertEquals(
                Set.of(),
                missing,
                "ops of the catalogue that the corpus never draws, so that the differential " + "never checks them");
    }

    @Test
    void everyTypeAndReduceOpIsDrawn() {
        Set<DataType> types = EnumSet.noneOf(DataType.class);
        Set<DataType> reducedFloats = EnumSet.noneOf(DataType.class);
        Set<ReduceOp> reductions = EnumSet.noneOf(ReduceOp.class);
        for (Op op : ops()) {
            types.add(op.type());
            if (op.reduce() != null) {
                reductions.add(op.reduce());
                if (op.type().isFloatingPoint()) {
                    reducedFloats.add(op.type());
                }
            }
        }
        assertEquals(EnumSet.allOf(DataType.class), types);
        assertEquals(
                EnumSet.of(
                        DataType.FLOAT16,
                        DataType.FLOAT32,
                        DataType.FLOAT64,
                        DataType.BFLOAT16,
                        DataType.FP8_E4M3,
                        DataType.FP8_E5M2),
                reducedFloats);
        assertEquals(EnumSet.allOf(ReduceOp.class), reductions);
        assertTrue(ops().stream()
                .noneMatch(op -> op.reduce() == ReduceOp.AVG && !op.type().isFloatingPoint()));
    }

    @Test
    void sendsAndReceivesRunRoundTheRingBothWays() {
        assertTrue(ops().stream().anyMatch(op -> op.kind() == OpKind.SEND && op.peer() == Peer.NEXT));
        assertTrue(ops().stream().anyMatch(op -> op.kind() == OpKind.SEND && op.peer() == Peer.PREVIOUS));
    }

    @Test
    void countsRunFromOneToTheLimitOddOnesIncluded() {
        List<Long> counts = ops().stream()
                .filter(op -> op.count().isConstant())
                .map(op -> op.count().constant())
                .toList();
        assertTrue(counts.contains(1L));
        assertTrue(counts.contains(Corpus.MAX_COUNT));
        assertTrue(counts.stream().filter(c -> c % 2 == 1 && c > 1000).count() > 10, counts.toString());
        assertTrue(counts.stream().allMatch(c -> c >= 1 && c <= Corpus.MAX_COUNT));
    }

    @Test
    void theDeclarationsUseEveryFormTheGrammarHas() {
        for (Registration r : Registration.values()) {
            assertTrue(any(p -> p.registration() == r), r.toString());
        }
        for (Allocator a : List.of(Allocator.MEM_ALLOC, Allocator.VMM, Allocator.LEGACY)) {
            assertTrue(any(p -> p.accessors().stream().anyMatch(x -> x.allocator() == a)), a.toString());
        }
        assertTrue(any(PipelineSpec::allowLegacy));
        assertTrue(any(p -> p.accessors().stream().anyMatch(a -> !a.registered())));
        assertTrue(
                any(p -> p.accessors().stream()
                        .anyMatch(a -> a.kind() == AccessorKind.VIEW
                                && !a.offsetBytes().isConstant())),
                "views at offsets that depend on ranks");
        assertTrue(any(p -> p.accessors().stream().anyMatch(a -> a.kind() == AccessorKind.EXTERNAL && a.pad() > 0)));
        assertTrue(ops().stream().anyMatch(op -> op.send() != null && op.send() == op.recv()), "in place");
        assertTrue(any(p -> p.steps().stream().anyMatch(Step::grouped)));
        assertTrue(any(p -> p.dims().stream().anyMatch(PipelineSpec.Dim::declaredInt)));
        assertTrue(any(p -> p.dims().stream().anyMatch(d -> !d.declaredInt())));
        assertTrue(any(p -> p.steps().stream().anyMatch(s -> s.parameters() && s.captured() != null)));
        assertTrue(
                any(p -> p.registration() == Registration.GRAPH
                        && p.calls().size()
                                > p.calls().stream()
                                        .map(c -> c.step() + List.of(c.args()))
                                        .distinct()
                                        .count()),
                "graph replays");
    }

    @Test
    void aSeedAlwaysDrawsTheSameCorpusAndAnotherSeedAnother() {
        List<String> sources =
                CORPUS.stream().limit(20).map(PipelineSource::write).toList();

        assertEquals(
                sources,
                CorpusGenerator.corpus(1, 20, Corpus.MAX_COUNT).stream()
                        .map(PipelineSource::write)
                        .toList());
        assertNotEquals(
                sources,
                CorpusGenerator.corpus(2, 20, Corpus.MAX_COUNT).stream()
                        .map(PipelineSource::write)
                        .toList());
    }

    @Test
    void everyOpsRangesLieInTheirBuffersApartFromTheOtherOpsOfTheStep() {
        for (PipelineSpec p : CORPUS) {
            for (int ranks = 2; ranks <= 8; ranks++) {
                for (Call call : p.calls()) {
                    Map<String, Long> symbols = p.symbols(ranks);
                    if (call.args().length > 0) {
                        symbols.put("off", call.args()[0]);
                        symbols.put("n", call.args()[1]);
                    }
                    List<long[]> ranges = new ArrayList<>();
                    List<String> roots = new ArrayList<>();
                    List<Op> owners = new ArrayList<>();
                    for (Op op : step(p, call.step()).ops()) {
                        for (Side side : op.send() == op.recv() ? List.of(op.send()) : sides(op)) {
                            Extent extent = side == op.send()
                                    ? op.kind().sendExtent()
                                    : op.kind().recvExtent();
                            String where = p.name() + " " + call.describe() + " at " + ranks + " ranks: " + op;
                            ranges.add(range(
                                    p, side, extent.elements(op.count().value(symbols), ranks), symbols, ranks, where));
                            roots.add(root(p, side).name());
                            owners.add(op);
                        }
                    }
                    for (int i = 0; i < ranges.size(); i++) {
                        for (int j = i + 1; j < ranges.size(); j++) {
                            boolean overlap = roots.get(i).equals(roots.get(j))
                                    && ranges.get(i)[0] < ranges.get(j)[1]
                                    && ranges.get(j)[0] < ranges.get(i)[1];
                            assertTrue(
                                    !overlap,
                                    p.name() + " " + call.describe() + " at " + ranks + " ranks: " + owners.get(i)
                                            + " and " + owners.get(j) + " overlap");
                        }
                    }
                }
            }
        }
    }

    private static Step step(PipelineSpec p, String name) {
        return p.steps().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    private static Accessor accessor(PipelineSpec p, String name) {
        return p.accessors().stream()
                .filter(a -> a.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static List<Side> sides(Op op) {
        List<Side> sides = new ArrayList<>();
        if (op.send() != null) {
            sides.add(op.send());
        }
        if (op.recv() != null) {
            sides.add(op.recv());
        }
        return sides;
    }

    private static Accessor root(PipelineSpec p, Side side) {
        Accessor a = accessor(p, side.accessor());
        return a.kind() == AccessorKind.VIEW ? accessor(p, a.of()) : a;
    }

    /** The bytes of its root allocation the side touches, checked to lie within its accessor and its root. */
    private static long[] range(
            PipelineSpec p, Side side, long elements, Map<String, Long> symbols, int ranks, String where) {
        Accessor a = accessor(p, side.accessor());
        Accessor root = root(p, side);
        long size = a.type().size();
        long base = a.kind() == AccessorKind.VIEW ? a.offsetBytes().value(symbols) : root.pad() * size;
        long start = base + side.offset().value(symbols) * size;
        long end = start + elements * size;
        assertTrue(elements >= 1 && side.offset().value(symbols) >= 0, where);
        assertTrue(end <= base + a.count().value(symbols) * size, where + " leaves " + a.name());
        assertTrue(
                base % size == 0
                        && base + a.count().value(symbols) * size
                                <= p.elements(root, ranks) * root.type().size(),
                where + ": " + a.name() + " leaves " + root.name());
        return new long[] {start, end};
    }
}
