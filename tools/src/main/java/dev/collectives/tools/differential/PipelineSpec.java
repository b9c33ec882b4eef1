package dev.collectives.tools.differential;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.tools.differential.Output.Segment;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One pipeline of the random corpus as {@link CorpusGenerator} drew it: what {@link PipelineSource} declares, and the
 * calls the driver makes. Every op owns its ranges of the buffers, apart from every other op's, so that no element
 * is reduced twice in a call and a group's ranges never overlap.
 *
 * @param name          the interface's simple name ("P0017")
 * @param registration  the pipeline's mode
 * @param allowLegacy   whether it registers {@code cudaMalloc} memory, which needs the opt-in
 * @param dims          its {@code @Dim}s and the values the driver binds
 * @param accessors     its buffers, views and externals, in declaration order
 * @param steps         its steps
 * @param calls         the step calls the driver makes, in order
 */
record PipelineSpec(
        String name,
        Registration registration,
        boolean allowLegacy,
        List<Dim> dims,
        List<Accessor> accessors,
        List<Step> steps,
        List<Call> calls) {
    /** The package of the corpus's interfaces. */
    static final String PACKAGE = "dev.collectives.corpus";

    PipelineSpec {
        dims = List.copyOf(dims);
        accessors = List.copyOf(accessors);
        steps = List.copyOf(steps);
        calls = List.copyOf(calls);
    }

    /** A {@code @Dim}, declared {@code int} or {@code long}, and the value bound. */
    record Dim(String name, long value, boolean declaredInt) {}

    enum AccessorKind {
        BUFFER,
        VIEW,
        EXTERNAL
    }

    /**
     * A {@code @Buffer}, {@code @View} or {@code @External}.
     *
     * @param of          a view's block
     * @param offsetBytes a view's offset in its block
     * @param pad         an external's offset, in elements, in the allocation the driver passes a slice of (the same
     *                    on every rank)
     */
    record Accessor(
            String name,
            AccessorKind kind,
            DataType type,
            Expr count,
            Allocator allocator,
            boolean registered,
            String of,
            Expr offsetBytes,
            long pad) {}

    /**
     * A step: {@code grouped} is {@code @Grouped}; {@code parameters}, that it takes {@code (long off, long n)};
     * {@code captured}, the tuple {@code @Capture} names, or null.
     */
    record Step(String name, boolean grouped, boolean parameters, List<Op> ops, long[] captured) {
        Step {
            ops = List.copyOf(ops);
        }
    }

    /** One op; a send has no recv side and a recv no send side. */
    record Op(OpKind kind, DataType type, ReduceOp reduce, int root, Side send, Side recv, Expr count, Peer peer) {}

    /** Where an op's side lies: an accessor, and an offset in elements of its type. */
    record Side(String accessor, Expr offset) {}

    /** A call of {@code step}, with {@code (off, n)} for a step with parameters. */
    record Call(String step, long[] args) {
        /** "s1(off 3, n 17)". */
        String describe() {
            return step + (args.length == 0 ? "()" : "(off " + args[0] + ", n " + args[1] + ")");
        }
    }

    /** {@code ranks} and the dims' values. */
    Map<String, Long> symbols(int ranks) {
        Map<String, Long> symbols = new HashMap<>();
        symbols.put("ranks", (long) ranks);
        dims.forEach(d -> symbols.put(d.name(), d.value()));
        return symbols;
    }

    /** The allocations the driver fills and reads back: every {@code @Buffer} and every external's allocation. */
    List<Accessor> roots() {
        return accessors.stream().filter(a -> a.kind() != AccessorKind.VIEW).toList();
    }

    /** Elements of a root allocation at {@code ranks} ranks: an external's include its pad. */
    long elements(Accessor root, int ranks) {
        return root.count().value(symbols(ranks)) + root.pad();
    }

    /**
     * The typed byte ranges of a root allocation: its views' ranges with their types, and the rest with the
     * allocation's type.
     */
    List<Segment> segments(Accessor root, int ranks) {
        Map<String, Long> symbols = symbols(ranks);
        long size = elements(root, ranks) * root.type().size();
        List<Segment> segments = new ArrayList<>();
        long at = 0;
        for (Accessor view : accessors) {
            if (view.kind() == AccessorKind.VIEW && view.of().equals(root.name())) {
                long start = view.offsetBytes().value(symbols);
                if (start > at) {
                    segments.add(new Segment(at, start - at, root.type()));
                }
                long length = view.count().value(symbols) * view.type().size();
                segments.add(new Segment(start, length, view.type()));
                at = start + length;
            }
        }
        if (size > at) {
            segments.add(new Segment(at, size - at, root.type()));
        }
        return segments;
    }

    /** The reductions of each floating-point type: what {@link ReductionBound} bounds. */
    Map<DataType, Set<ReduceOp>> floatingReductions() {
        Map<DataType, Set<ReduceOp>> reductions = new EnumMap<>(DataType.class);
        for (Step step : steps) {
            for (Op op : step.ops()) {
                if (op.kind().reduces() && op.type().isFloatingPoint()) {
                    reductions
                            .computeIfAbsent(op.type(), t -> EnumSet.noneOf(ReduceOp.class))
                            .add(op.reduce());
                }
            }
        }
        return reductions;
    }
}
