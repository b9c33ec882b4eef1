package dev.collectives.processor.validation;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.rules.PeerPairing;
import java.util.ArrayList;
import java.util.List;

/**
 * [DSL step]: with {@code ranks} declared, the sends and receives of each step pair up across ranks
 * ({@link PeerPairing}, which the generated bind also runs where {@code ranks} is not declared).
 */
final class DslPeerPairingValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        if (model.ranks() <= 0) {
            return;
        }
        for (StepDecl s : model.steps()) {
            check(model, s, diagnostics);
        }
    }

    private static void check(PipelineModel model, StepDecl step, Diagnostics diagnostics) {
        List<OpDecl> decls = new ArrayList<>();
        List<PeerPairing.Op> ops = new ArrayList<>();
        for (OpDecl o : step.ops()) {
            if (!o.kind().isPointToPoint() || o.peer() == null) {
                continue;
            }
            String accessor = o.kind() == OpKind.SEND ? o.send() : o.recv();
            DataType type = accessor == null
                    ? null
                    : model.buffer(accessor).map(BufferDecl::type).orElse(null);
            boolean badCount = o.count() == null ? o.expression(o.kind().countAttribute()) == null : o.count() <= 0;
            if (type == null || badCount) {
                return; // an unknown buffer or a bad count is reported on its own; pairing would only echo it
            }
            int peerRank = o.peer() == Peer.ABSOLUTE && o.peerRank() != null ? o.peerRank() : -1;
            decls.add(o);
            ops.add(new PeerPairing.Op(o.index(), o.kind(), o.peer(), peerRank, o.count(), type));
        }
        for (PeerPairing.Unpaired u : PeerPairing.unpaired(ops, model.ranks())) {
            OpDecl o = decls.get(u.op());
            diagnostics.error(
                    Tag.STEP, o.site(), o.kind().annotation() + " in `" + step.name() + "()`: " + u.problem());
        }
    }
}
