package dev.collectives.processor.validation;

import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;
import javax.lang.model.element.ExecutableElement;

/**
 * [DSL step]: a step is an abstract void method holding at least one op (its parameters are [DSL parameter]'s); every other abstract
 * method must be an accessor. Roots and peers name ranks that exist.
 */
final class DslStepValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (ExecutableElement m : model.unannotated()) {
            // a DeviceBuffer method is [DSL accessor]'s, a forgotten @Dim [DSL dim]'s at the expression naming it
            if (!Methods.returnsDeviceBuffer(m) && !Methods.namedAsDim(model, m)) {
                diagnostics.error(
                        Tag.STEP,
                        Site.of(m),
                        Methods.signature(m) + " has no op annotation; every abstract "
                                + "method of a pipeline is an accessor (@Buffer, @View, @External), a @Dim or a step "
                                + "(@AllReduce, @Send, ...)");
            }
        }
        for (ExecutableElement m : model.concrete()) {
            diagnostics.error(
                    Tag.STEP,
                    Site.of(m),
                    "`" + m.getSimpleName() + "()` has a body; accessor and op "
                            + "annotations belong on abstract methods, which the generated class implements");
        }
        for (StepDecl s : model.steps()) {
            ExecutableElement m = s.method();
            if (s.ops().isEmpty() && s.stray().isEmpty()) {
                diagnostics.error(
                        Tag.STEP,
                        Site.of(m),
                        "step `" + s.name() + "()` has no ops; add at least one op "
                                + "annotation (@AllReduce, @Send, ...)");
            }
            // GRAPH steps get the more specific [DSL graph-step]
            if (model.registration() != Registration.GRAPH) {
                if (!Methods.returnsVoid(m)) {
                    diagnostics.error(
                            Tag.STEP,
                            Site.of(m),
                            "step `" + s.name() + "()` returns `" + m.getReturnType()
                                    + "`; steps return void (results land in the recv buffers)");
                }
            }
            if (!m.getTypeParameters().isEmpty()) {
                diagnostics.error(
                        Tag.STEP,
                        Site.of(m),
                        "step `" + s.name() + "` is generic; steps are plain " + "`void " + s.name() + "()`");
            }
            for (OpDecl o : s.ops()) {
                checkRanks(model, o, diagnostics);
            }
            if (s.orderUnknown()) {
                diagnostics.warning(
                        Tag.STEP,
                        Site.of(m),
                        "step `" + s.name() + "()` repeats ops of one kind among "
                                + "ops of another, and this compiler does not expose the order they are written in; they run "
                                + "as "
                                + s.ops().stream()
                                        .map(o -> o.kind().annotation())
                                        .toList() + ": split the step or "
                                + "keep each kind's ops together");
            }
        }
    }

    private static void checkRanks(PipelineModel model, OpDecl o, Diagnostics diagnostics) {
        if (o.root() != null && (o.root() < 0 || model.ranks() > 0 && o.root() >= model.ranks())) {
            diagnostics.error(
                    Tag.STEP,
                    o.site("root"),
                    o.kind().annotation() + " root = " + o.root() + " is not a " + "rank of "
                            + (model.ranks() > 0 ? "the declared " + model.ranks() + " ranks" : "any communicator"));
        }
        if (o.peer() == null || o.peerRank() == null) {
            return;
        }
        if (o.peer() == Peer.ABSOLUTE) {
            if (o.peerRank() < 0 || model.ranks() > 0 && o.peerRank() >= model.ranks()) {
                diagnostics.error(
                        Tag.STEP,
                        o.site(o.isExplicit("peerRank") ? "peerRank" : "peer"),
                        o.kind().annotation() + " with peer = Peer.ABSOLUTE needs peerRank = k, a rank of "
                                + (model.ranks() > 0 ? "the declared " + model.ranks() + " ranks" : "the communicator")
                                + "; it is " + o.peerRank());
            }
        } else if (o.isExplicit("peerRank")) {
            diagnostics.error(
                    Tag.STEP,
                    o.site("peerRank"),
                    o.kind().annotation() + " peerRank = " + o.peerRank()
                            + " is only read with peer = Peer.ABSOLUTE; this op's peer is Peer." + o.peer());
        }
    }
}
