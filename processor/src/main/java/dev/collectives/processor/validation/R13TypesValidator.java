package dev.collectives.processor.validation;

import java.util.List;

import dev.collectives.annotation.DataType;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpKind;
import dev.collectives.processor.model.OpSide;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.rules.Rule;

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
                diagnostics.error(Rule.R13_TYPES, b.site("count"), b.kind().annotation() + " `" + b.name()
                        + "` has count = " + b.count() + "; counts are positive");
            } else if (b.sizeBytes() == null) {
                diagnostics.error(Rule.R13_TYPES, b.site("count"), b.kind().annotation() + " `" + b.name() + "`: "
                        + b.count() + " x " + b.type() + " (" + b.type().size() + " bytes each) overflows a long");
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
        BufferDecl external = view.kind() != BufferDecl.Kind.VIEW || view.of() == null ? null
                : model.buffer(view.of()).filter(p -> p.kind() == BufferDecl.Kind.EXTERNAL).orElse(null);
        Long offset = view.offsetBytes();
        Long bytes = view.sizeBytes();
        Long declared = external == null ? null : external.sizeBytes();
        if (offset == null || offset < 0 || bytes == null || declared == null) {
            return; // no external, a negative offset (R7), or a size unknown here or reported on its own
        }
        if (offset > declared || bytes > declared - offset) {
            diagnostics.error(Rule.R13_TYPES, view.site("offsetBytes"), "view `" + view.name() + "` (" + view.count()
                    + " x " + view.type() + " = " + bytes + " bytes at byte " + offset + ") reaches past external `"
                    + external.name() + "`, declared as " + external.count() + " x " + external.type() + " ("
                    + declared + " bytes), which is all bind requires of the buffer it is given; declare the "
                    + "external's count to cover the view");
        }
    }

    private static void check(PipelineModel model, StepDecl s, OpDecl o, Diagnostics diagnostics) {
        String op = o.kind().annotation() + " in `" + s.name() + "()`";
        if (o.count() != null && o.count() <= 0) {
            diagnostics.error(Rule.R13_TYPES, o.countSite(), op + " has " + o.kind().countAttribute() + " = "
                    + o.count() + "; counts are positive");
        }
        List<OpSide> sides = o.sides();
        if (sides.size() == 2 && sides.get(0).buffer().type() != null && sides.get(1).buffer().type() != null
                && sides.get(0).buffer().type() != sides.get(1).buffer().type()) {
            diagnostics.error(Rule.R13_TYPES, sides.get(1).site(), op + " sends " + sides.get(0).buffer().type()
                    + " from `" + sides.get(0).buffer().name() + "` but receives into `" + sides.get(1).buffer().name()
                    + "`, which is " + sides.get(1).buffer().type() + "; an op has one element type: declare a @View "
                    + "of the right type");
        }
        DataType type = sides.isEmpty() ? null : sides.get(0).buffer().type();
        if (o.op() != null && type != null && !o.op().suits(type)) {
            diagnostics.error(Rule.R13_TYPES, o.site("op"), op + " uses ReduceOp." + o.op() + " on " + type
                    + "; AVG divides, which only floating-point types do: use SUM, or a floating-point type");
        }
        if (o.kind().reduces()) {
            sides.stream().map(OpSide::buffer).filter(b -> b.kind() == BufferDecl.Kind.BUFFER && b.typeDefaulted())
                    .findFirst().ifPresent(b -> diagnostics.warning(Rule.R13_TYPES, o.site(), op + " reduces `"
                            + b.name() + "` as UINT8, the type @Buffer has when none is given: each byte is reduced "
                            + "on its own; declare the elements' type (type = DataType.FLOAT32, ...), or type = "
                            + "DataType.UINT8 if bytes are meant"));
        }
        for (OpSide side : sides) {
            if (o.count() != null && o.count() > 0 && side.knownOffset() != null && side.buffer().type() != null
                    && overflows(side.knownOffset(), elements(model, side), side.buffer().type().size())) {
                diagnostics.error(Rule.R13_TYPES, o.countSite(), op + ": " + side.role().word() + " offset "
                        + side.knownOffset() + " plus " + extentText(model, side) + " of " + side.buffer().type()
                        + " overflows a long byte size");
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
        return model.ranks() > 0 ? count + " x " + model.ranks() + " ranks = " + elements(model, side) + " elements"
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
