package dev.collectives.processor.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpKind;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;

/** The send and recv sides of an op, resolved to accessors: what R1, R7 and R13 look at. */
record Sides(String role, BufferDecl buffer, Long offset, OpKind.Extent extent, Site site, Site offsetSite) {
    /** The sides whose accessor exists; unknown names are [DSL unknown-buffer]'s to report. */
    static List<Sides> of(PipelineModel model, OpDecl o) {
        List<Sides> sides = new ArrayList<>(2);
        if (o.kind().hasSend()) {
            Optional<BufferDecl> b = o.send() == null ? Optional.empty() : model.buffer(o.send());
            b.ifPresent(buffer -> sides.add(new Sides("send", buffer, o.sendOffset(), o.kind().sendExtent(),
                    o.sendSite(), o.site(o.kind().sendOffsetAttribute()))));
        }
        if (o.kind().hasRecv()) {
            Optional<BufferDecl> b = o.recv() == null ? Optional.empty() : model.buffer(o.recv());
            b.ifPresent(buffer -> sides.add(new Sides("recv", buffer, o.recvOffset(), o.kind().recvExtent(),
                    o.recvSite(), o.site(o.kind().recvOffsetAttribute()))));
        }
        return sides;
    }

    /** Elements this side touches: count, or count × ranks (× 1 when ranks are not declared: the least it can be). */
    Long elements(PipelineModel model, OpDecl o) {
        if (o.count() == null) {
            return null;
        }
        long ranks = extent == OpKind.Extent.COUNT_TIMES_RANKS ? Math.max(1, model.ranks()) : 1;
        try {
            return Math.multiplyExact(o.count(), ranks);
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /** "count × 4 ranks" or "count" for messages. */
    String extentText(PipelineModel model, OpDecl o) {
        if (extent != OpKind.Extent.COUNT_TIMES_RANKS) {
            return o.count() + " elements";
        }
        return model.ranks() > 0 ? o.count() + " x " + model.ranks() + " ranks = " + elements(model, o) + " elements"
                : "at least " + o.count() + " elements (" + o.count() + " x ranks; declare ranks to check it fully)";
    }
}
