package dev.collectives.tools.differential;

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
import dev.collectives.tools.differential.PipelineSpec.Dim;
import dev.collectives.tools.differential.PipelineSpec.Op;
import dev.collectives.tools.differential.PipelineSpec.Side;
import dev.collectives.tools.differential.PipelineSpec.Step;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Draws the random corpus from the DSL's grammar, pipeline {@code i} of seed {@code s} always the same: every op of
 * the catalogue {@link OpKind} (send/recv as rings, both ways), every data type, every reduce op, counts from 1 up
 * to a limit (2^20 by default; 2^17 where a side holds {@code count × ranks}), views of byte blocks at offsets that
 * depend on {@code ranks}, in place, NONE, LOCAL and GRAPH, {@code registered = false}, the MEM_ALLOC, VMM and LEGACY
 * allocators, externals at an offset in their allocation, {@code @Grouped}, a {@code @Dim}, steps with
 * {@code (off, n)} parameters and {@code @Capture}. Sizes and offsets are written as expressions in {@code ranks}
 * and the dim, so one compiled corpus serves every rank count from 2 up.
 */
final class CorpusGenerator {
    /** Counts above this are large: at most one op of a pipeline has one. */
    private static final long LARGE = 1 << 16;
    /** The largest count of an op with a {@code count × ranks} side. */
    private static final long LARGEST_TIMES_RANKS = 1 << 17;
    /** Every op of the catalogue but send and recv, which are drawn in pairs: a new op is drawn at once. */
    private static final OpKind[] COLLECTIVES =
            Arrays.stream(OpKind.values()).filter(k -> !k.isPointToPoint()).toArray(OpKind[]::new);

    private static final String OFF = "off";
    private static final String N = "n";

    private final SplittableRandom random;
    private final long maxCount;
    private final List<Container> containers = new ArrayList<>();
    private final List<Call> calls = new ArrayList<>();
    private Registration registration;
    private boolean allowLegacy;
    private Dim dim;
    private boolean large;

    private CorpusGenerator(SplittableRandom random, long maxCount) {
        this.random = random;
        this.maxCount = maxCount;
    }

    /** The first {@code size} pipelines of {@code seed}, no op counting more than {@code maxCount} elements. */
    static List<PipelineSpec> corpus(long seed, int size, long maxCount) {
        return IntStream.range(0, size)
                .mapToObj(i -> pipeline(seed, i, maxCount))
                .toList();
    }

    static PipelineSpec pipeline(long seed, int index, long maxCount) {
        return new CorpusGenerator(new SplittableRandom(InputData.mix(seed, index)), maxCount)
                .draw(String.format("P%04d", index));
    }

    private PipelineSpec draw(String name) {
        registration = pick(Registration.values());
        if (chance(0.3)) {
            dim = new Dim("d0", count(true), chance(0.3));
        }
        List<Step> steps = new ArrayList<>();
        int stepCount = 1 + random.nextInt(3);
        for (int s = 0; s < stepCount; s++) {
            steps.add(step("s" + s));
        }
        List<Accessor> accessors = finish();
        return new PipelineSpec(
                name, registration, allowLegacy, dim == null ? List.of() : List.of(dim), accessors, steps, calls);
    }

    private Step step(String name) {
        boolean parameters = chance(0.3);
        long capacity = parameters ? count(true) : 0;
        List<Op> ops = new ArrayList<>();
        boolean pointToPoint = chance(0.2);
        if (pointToPoint) {
            int pairs = 1 + random.nextInt(2);
            for (int p = 0; p < pairs; p++) {
                DataType type = pick(DataType.values());
                Sizing sizing = sizing(parameters && (p == 0 || chance(0.7)), capacity, false);
                boolean registered = registered();
                Side sent = place(type, sizing.capacity(), registered, sizing.offset());
                Side received = place(type, sizing.capacity(), registered, sizing.offset());
                // the first pair runs round the ring one way, the second the other way
                ops.add(new Op(
                        OpKind.SEND, type, null, 0, sent, null, sizing.count(), p == 0 ? Peer.NEXT : Peer.PREVIOUS));
                ops.add(new Op(
                        OpKind.RECV,
                        type,
                        null,
                        0,
                        null,
                        received,
                        sizing.count(),
                        p == 0 ? Peer.PREVIOUS : Peer.NEXT));
            }
        } else {
            int count = 1 + random.nextInt(3);
            for (int i = 0; i < count; i++) {
                ops.add(collective(parameters && (i == 0 || chance(0.7)), capacity));
            }
        }
        boolean grouped = !pointToPoint && ops.size() > 1 && chance(0.5);
        long[] captured = null;
        if (parameters) {
            long[] first = arguments(capacity);
            calls.add(new Call(name, first));
            calls.add(new Call(name, arguments(capacity)));
            if (registration == Registration.GRAPH && chance(0.5)) {
                calls.add(new Call(name, first));
            }
            captured = registration == Registration.GRAPH && chance(0.5) ? first : null;
        } else {
            calls.add(new Call(name, new long[0]));
            if (registration == Registration.GRAPH && chance(0.4)) {
                calls.add(new Call(name, new long[0]));
            }
        }
        return new Step(name, grouped, parameters, ops, captured);
    }

    private Op collective(boolean fromParameters, long capacity) {
        OpKind kind = pick(COLLECTIVES);
        DataType type = pick(DataType.values());
        ReduceOp reduce = kind.reduces() ? reduceOp(type) : null;
        int root = kind.hasRoot() ? random.nextInt(2) : 0;
        Sizing sizing = sizing(
                fromParameters,
                capacity,
                kind.sendExtent() == Extent.COUNT_TIMES_RANKS || kind.recvExtent() == Extent.COUNT_TIMES_RANKS);
        boolean registered = registered();
        Side send = place(type, sizing.length(kind.sendExtent()), registered, sizing.offset());
        Side recv = kind.inPlaceAtSameOffset() && chance(0.25)
                ? send
                : place(type, sizing.length(kind.recvExtent()), registered, sizing.offset());
        return new Op(kind, type, reduce, root, send, recv, sizing.count(), null);
    }

    /**
     * An op's count as written, the elements each of its ranges holds per rank, and what its offsets add: from the
     * step's parameters ({@code n} within {@code capacity}, at {@code off}), the dim, or a constant.
     */
    private record Sizing(Expr count, Expr capacity, Expr offset) {
        Expr length(Extent extent) {
            return extent == Extent.COUNT_TIMES_RANKS ? capacity.timesRanks() : capacity;
        }
    }

    private Sizing sizing(boolean fromParameters, long capacity, boolean timesRanks) {
        if (fromParameters) {
            return new Sizing(Expr.symbol(N), Expr.constant(capacity), Expr.symbol(OFF));
        }
        if (dim != null && chance(0.4)) {
            return new Sizing(Expr.symbol(dim.name()), Expr.symbol(dim.name()), Expr.constant(0));
        }
        long count = count(timesRanks);
        return new Sizing(Expr.constant(count), Expr.constant(count), Expr.constant(0));
    }

    /** A fresh range of {@code length} elements of {@code type} in a buffer, view or external, after a small gap. */
    private Side place(DataType type, Expr length, boolean registered, Expr extraOffset) {
        Container c = container(type, registered);
        Expr start = c.length.plus(chance(0.5) ? random.nextInt(1, 8) : 0);
        c.length = start.plus(length);
        return new Side(c.name, start.plus(extraOffset));
    }

    private Container container(DataType type, boolean registered) {
        double u = random.nextDouble();
        List<Container> same = containers.stream()
                .filter(c -> !c.isBlock() && c.type == type && c.registered == registered)
                .toList();
        if (u < 0.3 && !same.isEmpty()) {
            return pick(same);
        }
        if (u < 0.5) {
            List<Container> blocks = containers.stream()
                    .filter(c -> c.isBlock() && c.registered == registered)
                    .toList();
            Container block = !blocks.isEmpty() && chance(0.5)
                    ? pick(blocks)
                    : add(new Container(
                            "block" + count(AccessorKind.BUFFER),
                            AccessorKind.BUFFER,
                            DataType.UINT8,
                            allocator(registered),
                            registered,
                            null,
                            0,
                            true));
            Container view = add(new Container(
                    "v" + count(AccessorKind.VIEW), AccessorKind.VIEW, type, null, registered, block, 0, false));
            block.views.add(view);
            return view;
        }
        if (u < 0.6 && registered) {
            return add(new Container(
                    "e" + count(AccessorKind.EXTERNAL),
                    AccessorKind.EXTERNAL,
                    type,
                    Allocator.MEM_ALLOC,
                    true,
                    null,
                    chance(0.5) ? 0 : random.nextInt(1, 65),
                    false));
        }
        return add(new Container(
                "b" + count(AccessorKind.BUFFER),
                AccessorKind.BUFFER,
                type,
                allocator(registered),
                registered,
                null,
                0,
                false));
    }

    private Container add(Container c) {
        containers.add(c);
        return c;
    }

    private long count(AccessorKind kind) {
        return containers.stream().filter(c -> c.kind == kind).count();
    }

    /** The accessors, sized to the ranges placed in them: views laid out one after another in their blocks. */
    private List<Accessor> finish() {
        List<Accessor> accessors = new ArrayList<>();
        for (Container c : containers) {
            if (c.isBlock()) {
                Expr at = Expr.constant(chance(0.5) ? 16L * random.nextInt(1, 4) : 0);
                for (Container view : c.views) {
                    view.offsetBytes = at;
                    view.length = view.length.plus(random.nextInt(0, 4));
                    // each term rounded up to 16 bytes: the next view starts aligned, whatever ranks and the dim are
                    at = at.plus(view.length.times(view.type.size()).roundedUp(16))
                            .plus(chance(0.3) ? 16 : 0);
                }
                c.length = at.plus(random.nextInt(0, 16));
            } else if (c.kind != AccessorKind.VIEW) {
                c.length = c.length.plus(random.nextInt(0, 4));
            }
        }
        for (Container c : containers) {
            accessors.add(new Accessor(
                    c.name,
                    c.kind,
                    c.type,
                    c.length,
                    c.allocator,
                    c.registered,
                    c.block == null ? null : c.block.name,
                    c.offsetBytes,
                    c.pad));
        }
        return accessors;
    }

    private boolean registered() {
        return registration != Registration.LOCAL || !chance(0.15);
    }

    private Allocator allocator(boolean registered) {
        double u = random.nextDouble();
        if (u < 0.75) {
            return Allocator.MEM_ALLOC;
        }
        if (u < 0.87) {
            return Allocator.VMM;
        }
        allowLegacy |= registered && registration != Registration.NONE;
        return Allocator.LEGACY;
    }

    private ReduceOp reduceOp(DataType type) {
        ReduceOp[] ops = type.isFloatingPoint()
                ? ReduceOp.values()
                : new ReduceOp[] {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX};
        return chance(0.3) ? ReduceOp.SUM : pick(ops);
    }

    /** Mostly small counts, some up to 2^16, a few large ones (at most one per pipeline); some exactly 1. */
    private long count(boolean timesRanks) {
        long limit = timesRanks ? Math.min(maxCount, LARGEST_TIMES_RANKS) : maxCount;
        double u = random.nextDouble();
        long count;
        if (u < 0.05) {
            count = 1;
        } else if (u < 0.65 || large) {
            count = logUniform(1, 1024);
        } else if (u < 0.92) {
            count = logUniform(1024, LARGE);
        } else {
            count = chance(0.2) ? limit : logUniform(LARGE, limit);
            large = true;
        }
        return Math.max(1, Math.min(count, limit));
    }

    private long logUniform(long low, long high) {
        return high <= low ? low : (long) Math.exp(random.nextDouble(Math.log(low), Math.log(high)));
    }

    /** {@code (off, n)} with {@code off + n <= capacity}. */
    private long[] arguments(long capacity) {
        long n = random.nextLong(1, capacity + 1);
        return new long[] {random.nextLong(0, capacity - n + 1), n};
    }

    private boolean chance(double p) {
        return random.nextDouble() < p;
    }

    private <T> T pick(T[] values) {
        return values[random.nextInt(values.length)];
    }

    private <T> T pick(List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    /** An accessor being drawn: a view lies in its {@code block}, a UINT8 buffer that holds only views. */
    private static final class Container {
        final String name;
        final AccessorKind kind;
        final DataType type;
        final Allocator allocator;
        final boolean registered;
        final Container block;
        final long pad;
        final boolean holdsViews;
        final List<Container> views = new ArrayList<>();
        Expr length = Expr.constant(0);
        Expr offsetBytes;

        Container(
                String name,
                AccessorKind kind,
                DataType type,
                Allocator allocator,
                boolean registered,
                Container block,
                long pad,
                boolean holdsViews) {
            this.name = name;
            this.kind = kind;
            this.type = type;
            this.allocator = allocator;
            this.registered = registered;
            this.block = block;
            this.pad = pad;
            this.holdsViews = holdsViews;
        }

        boolean isBlock() {
            return holdsViews;
        }
    }
}
