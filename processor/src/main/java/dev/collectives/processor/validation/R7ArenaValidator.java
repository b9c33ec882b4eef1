package dev.collectives.processor.validation;

import java.util.List;
import java.util.Optional;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpKind;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.rules.Rule;

/**
 * R7 ARENA: views lie inside the block or view they are carved from, at offsets aligned to their element size; ops
 * stay inside their buffers (allgather, reducescatter and alltoall reach count × ranks); an op's send and recv either
 * start at the same byte (in place: allreduce, broadcast, reduce) or do not overlap (allgather, reducescatter and
 * alltoall cannot run in place at the same offsets on every rank).
 */
final class R7ArenaValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (BufferDecl b : model.buffers()) {
            if (b.kind() == BufferDecl.Kind.VIEW) {
                checkView(model, b, diagnostics);
            }
        }
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                List<Sides> sides = Sides.of(model, o);
                sides.forEach(side -> checkReach(model, o, side, diagnostics));
                if (sides.size() == 2) {
                    checkOverlap(model, o, sides.get(0), sides.get(1), diagnostics);
                }
            }
            if (s.grouped()) {
                checkGroup(model, s, diagnostics);
            }
        }
    }

    /**
     * The ops of a group run concurrently, so a range one of them writes (a recv) must not overlap a range another
     * reads or writes: a send posted beside a recv into the same bytes reads whatever the recv has written so far.
     */
    private static void checkGroup(PipelineModel model, StepDecl step, Diagnostics diagnostics) {
        List<OpDecl> ops = step.ops();
        for (int j = 1; j < ops.size(); j++) {
            for (Sides later : Sides.of(model, ops.get(j))) {
                for (int i = 0; i < j; i++) {
                    for (Sides earlier : Sides.of(model, ops.get(i))) {
                        boolean writes = "recv".equals(later.role()) || "recv".equals(earlier.role());
                        if (writes && overlap(model, ops.get(i), earlier, ops.get(j), later)) {
                            diagnostics.error(Rule.R7_ARENA, later.site(), ops.get(j).kind().annotation() + " "
                                    + later.role() + " in `" + step.name() + "()` overlaps the " + earlier.role()
                                    + " of " + ops.get(i).kind().annotation() + " in the same group, which runs "
                                    + "concurrently with it; give each op of a group its own range");
                            return;
                        }
                    }
                }
            }
        }
    }

    private static boolean overlap(PipelineModel model, OpDecl a, Sides aSide, OpDecl b, Sides bSide) {
        Optional<BufferDecl> root = model.root(aSide.buffer());
        if (root.isEmpty() || root.get() != model.root(bSide.buffer()).orElse(null)) {
            return false;
        }
        long[] x = range(model, a, aSide);
        long[] y = range(model, b, bSide);
        return x != null && y != null && x[0] < y[1] && y[0] < x[1];
    }

    private static void checkView(PipelineModel model, BufferDecl view, Diagnostics diagnostics) {
        Long offset = view.offsetBytes();
        Long bytes = view.sizeBytes();
        Optional<BufferDecl> parent = view.of() == null ? Optional.empty() : model.buffer(view.of());
        if (offset == null) {
            return;
        }
        if (offset < 0) {
            diagnostics.error(Rule.R7_ARENA, view.site("offsetBytes"), "view `" + view.name() + "` starts at byte "
                    + offset + ", before the head of `" + view.of() + "`; offsets are >= 0");
            return;
        }
        // a view of an @External is held to the external's declared shape, under R13 (R13TypesValidator)
        boolean ofBlock = parent.isPresent() && parent.get().kind() != BufferDecl.Kind.EXTERNAL;
        Long parentBytes = parent.map(BufferDecl::sizeBytes).orElse(null);
        if (ofBlock && bytes != null && parentBytes != null && (offset > parentBytes || bytes > parentBytes - offset)) {
            diagnostics.error(Rule.R7_ARENA, view.site("offsetBytes"), "view `" + view.name() + "` (" + view.count()
                    + " x " + view.type() + " = " + bytes + " bytes at byte " + offset + ") reaches past the end of `"
                    + view.of() + "` (" + parentBytes + " bytes); it must lie inside its block");
        }
        Optional<Long> inRoot = model.offsetInRoot(view);
        if (view.type() != null && inRoot.isPresent() && inRoot.get() % view.type().size() != 0) {
            diagnostics.error(Rule.R7_ARENA, view.site("offsetBytes"), "view `" + view.name() + "` starts at byte "
                    + inRoot.get() + " of its allocation, not a multiple of the " + view.type() + " element size "
                    + view.type().size() + "; align offsetBytes to " + view.type().size());
        }
    }

    private static void checkReach(PipelineModel model, OpDecl o, Sides side, Diagnostics diagnostics) {
        if (side.offset() == null) {
            return;
        }
        if (side.offset() < 0) {
            diagnostics.error(Rule.R7_ARENA, side.offsetSite(), o.kind().annotation() + " " + side.role()
                    + " offset " + side.offset() + " into `" + side.buffer().name() + "` is negative");
            return;
        }
        Long elements = side.elements(model, o);
        Long count = side.buffer().count();
        if (elements == null || count == null || elements <= 0) {
            return;
        }
        if (side.offset() > count || elements > count - side.offset()) {
            diagnostics.error(Rule.R7_ARENA, side.offset() == 0 ? o.countSite() : side.offsetSite(),
                    o.kind().annotation() + " " + side.role() + " reaches past `" + side.buffer().name() + "`: "
                            + side.extentText(model, o) + " from element " + side.offset() + ", but `"
                            + side.buffer().name() + "` holds " + count + "; shorten the op or enlarge the buffer");
        }
    }

    private static void checkOverlap(PipelineModel model, OpDecl o, Sides send, Sides recv, Diagnostics diagnostics) {
        Optional<BufferDecl> sendRoot = model.root(send.buffer());
        if (sendRoot.isEmpty() || sendRoot.get() != model.root(recv.buffer()).orElse(null)) {
            return;
        }
        long[] s = range(model, o, send);
        long[] r = range(model, o, recv);
        if (s == null || r == null || !(s[0] < r[1] && r[0] < s[1])) {
            return;
        }
        if (send.extent() != OpKind.Extent.COUNT || recv.extent() != OpKind.Extent.COUNT) {
            // in place, allgather's send is recv + rank x count and reducescatter's recv is send + rank x count: an
            // offset that differs per rank, which R2 forbids; alltoall has no in-place form at all
            diagnostics.error(Rule.R7_ARENA, recv.site(), o.kind().annotation() + " send (bytes [" + s[0] + ", "
                    + s[1] + ") of `" + sendRoot.get().name() + "`) and recv (bytes [" + r[0] + ", " + r[1]
                    + ")) overlap, and this op cannot run in place at the same offsets on every rank: give send "
                    + "and recv separate ranges");
        } else if (s[0] != r[0]) {
            diagnostics.error(Rule.R7_ARENA, recv.site(), o.kind().annotation() + " send (bytes [" + s[0] + ", "
                    + s[1] + ") of `" + sendRoot.get().name() + "`) and recv (bytes [" + r[0] + ", " + r[1]
                    + ")) overlap without coinciding; make them start at the same byte (in place) or move them apart");
        }
    }

    /** [start, end) in bytes from the head of the side's root, or null when unknown or overflowing. */
    private static long[] range(PipelineModel model, OpDecl o, Sides side) {
        Optional<Long> base = model.offsetInRoot(side.buffer());
        Long elements = side.elements(model, o);
        if (base.isEmpty() || elements == null || side.offset() == null || side.buffer().type() == null) {
            return null;
        }
        try {
            long size = side.buffer().type().size();
            long start = Math.addExact(base.get(), Math.multiplyExact(side.offset(), size));
            return new long[] {start, Math.addExact(start, Math.multiplyExact(elements, size))};
        } catch (ArithmeticException e) {
            return null;
        }
    }
}
