package dev.collectives.processor.validation;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpSide;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.rules.Message;
import java.util.List;

/**
 * R13 TYPES: counts are positive, byte sizes fit in a long, views of an {@code @External} stay within its declared
 * shape, an op's buffers have one element type, and its reduce op suits that type ({@code ReduceOp.suits}: AVG only
 * on floating-point types). A reduction over a @Buffer whose type was left at its UINT8 default is warned about: it
 * reduces each byte on its own, rarely what was meant.
 */
final class R13TypesValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (BufferDecl b : model.buffers()) {
            if (b.count() == null || b.type() == null) {
                continue;
            }
            if (b.count() <= 0) {
                diagnostics.error(
                        Message.R13_COUNT_NOT_POSITIVE,
                        b.site("count"),
                        b.kind().annotation() + " `" + b.name() + "`",
                        "count",
                        b.count());
            } else if (b.sizeBytes() == null) {
                diagnostics.error(
                        Message.R13_SIZE_OVERFLOW,
                        b.site("count"),
                        b.kind().annotation(),
                        b.name(),
                        b.count(),
                        b.type(),
                        b.type().size());
            }
        }
        model.buffers().forEach(b -> checkViewOfExternal(model, b, diagnostics));
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                check(model, s, o, diagnostics);
            }
        }
    }

    /**
     * A view of an {@code @External} stays within the external's declared count and type: that is all bind
     * guarantees of the buffer it is given, and bind checks it before it lays out any view.
     */
    private static void checkViewOfExternal(PipelineModel model, BufferDecl view, Diagnostics diagnostics) {
        BufferDecl external = view.kind() != BufferDecl.Kind.VIEW || view.of() == null
                ? null
                : model.buffer(view.of())
                        .filter(p -> p.kind() == BufferDecl.Kind.EXTERNAL)
                        .orElse(null);
        Long offset = view.offsetBytes();
        Long bytes = view.sizeBytes();
        Long declared = external == null ? null : external.sizeBytes();
        if (offset == null || offset < 0 || bytes == null || declared == null) {
            return; // no external, a negative offset (R7), or a size unknown here or reported on its own
        }
        if (offset > declared || bytes > declared - offset) {
            diagnostics.error(
                    Message.R13_VIEW_PAST_EXTERNAL,
                    view.site("offsetBytes"),
                    view.name(),
                    view.count(),
                    view.type(),
                    bytes,
                    offset,
                    external.name(),
                    external.count(),
                    external.type(),
                    declared);
        }
    }

    private static void check(PipelineModel model, StepDecl s, OpDecl o, Diagnostics diagnostics) {
        String op = o.kind().annotation() + " in `" + s.name() + "()`";
        if (o.count() != null && o.count() <= 0) {
            diagnostics.error(
                    Message.R13_COUNT_NOT_POSITIVE, o.countSite(), op, o.kind().countAttribute(), o.count());
        }
        List<OpSide> sides = o.sides();
        if (sides.size() == 2
                && sides.get(0).buffer().type() != null
                && sides.get(1).buffer().type() != null
                && sides.get(0).buffer().type() != sides.get(1).buffer().type()) {
            diagnostics.error(
                    Message.R13_MIXED_TYPES,
                    sides.get(1).site(),
                    op,
                    sides.get(0).buffer().type(),
                    sides.get(0).buffer().name(),
                    sides.get(1).buffer().name(),
                    sides.get(1).buffer().type());
        }
        DataType type = sides.isEmpty() ? null : sides.get(0).buffer().type();
        if (o.op() != null && type != null && !o.op().suits(type)) {
            diagnostics.error(Message.R13_REDUCE_OP, o.site("op"), op, o.op(), type);
        }
        if (o.kind().reduces()) {
            sides.stream()
                    .map(OpSide::buffer)
                    .filter(b -> b.kind() == BufferDecl.Kind.BUFFER && b.typeDefaulted())
                    .findFirst()
                    .ifPresent(b -> diagnostics.warning(Message.R13_DEFAULT_UINT8, o.site(), op, b.name()));
        }
        for (OpSide side : sides) {
            if (o.count() != null
                    && o.count() > 0
                    && side.knownOffset() != null
                    && side.buffer().type() != null
                    && overflows(
                            side.knownOffset(),
                            elements(model, side),
                            side.buffer().type().size())) {
                diagnostics.error(
                        Message.R13_RANGE_OVERFLOW,
                        o.countSite(),
                        op,
                        side.role().word(),
                        side.knownOffset(),
                        extentText(model, side),
                        side.buffer().type());
            }
        }
    }

    /** Elements the side touches: count, or count × ranks (× 1 when ranks are not declared: the least it can be). */
    private static Long elements(PipelineModel model, OpSide side) {
        long ranks = side.extent() == OpKind.Extent.COUNT_TIMES_RANKS ? Math.max(1, model.ranks()) : 1;
        try {
            return Math.multiplyExact(side.op().count(), ranks);
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /** "1024 elements", or "1024 x 4 ranks = 4096 elements". */
    private static String extentText(PipelineModel model, OpSide side) {
        long count = side.op().count();
        if (side.extent() != OpKind.Extent.COUNT_TIMES_RANKS) {
            return count + " elements";
        }
        return model.ranks() > 0
                ? count + " x " + model.ranks() + " ranks = " + elements(model, side) + " elements"
                : "at least " + count + " elements (" + count + " x ranks; declare ranks to check it fully)";
    }

    private static boolean overflows(long offset, Long elements, int size) {
        if (elements == null) {
            return true;
        }
        try {
            Math.multiplyExact(Math.addExact(offset, elements), (long) size);
            return false;
        } catch (ArithmeticException e) {
            return true;
        }
    }
}
