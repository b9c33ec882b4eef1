package dev.collectives.processor.validation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpKind;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;

/**
 * [DSL step]: with {@code ranks} declared, the sends and receives of each step pair up across ranks. Every rank runs
 * the step's group; rank r's k-th send to rank d must meet rank d's k-th receive from rank r, with the same count
 * and type, or both ranks wait for ever.
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

    /** One op as issued by one rank, with the rank at the other end. */
    private record Half(OpDecl op, int rank, int peer, Long count, DataType type) {
    }

    private static void check(PipelineModel model, StepDecl step, Diagnostics diagnostics) {
        Map<List<Integer>, List<Half>> sends = new LinkedHashMap<>();
        Map<List<Integer>, List<Half>> recvs = new LinkedHashMap<>();
        for (int rank = 0; rank < model.ranks(); rank++) {
            for (OpDecl o : step.ops()) {
                Integer peer = peer(model, o, rank);
                if (peer == null) {
                    continue;
                }
                String accessor = o.kind() == OpKind.SEND ? o.send() : o.recv();
                DataType type = accessor == null ? null : model.buffer(accessor).map(BufferDecl::type).orElse(null);
                if (type == null || o.count() == null || o.count() <= 0) {
                    return; // an unknown buffer or a bad count is reported on its own; pairing would only echo it
                }
                Half half = new Half(o, rank, peer, o.count(), type);
                if (o.kind() == OpKind.SEND) {
                    sends.computeIfAbsent(List.of(rank, peer), k -> new ArrayList<>()).add(half);
                } else {
                    recvs.computeIfAbsent(List.of(peer, rank), k -> new ArrayList<>()).add(half);
                }
            }
        }
        Set<OpDecl> reported = new LinkedHashSet<>();
        Set<List<Integer>> channels = new LinkedHashSet<>(sends.keySet());
        channels.addAll(recvs.keySet());
        for (List<Integer> channel : channels) {
            List<Half> out = sends.getOrDefault(channel, List.of());
            List<Half> in = recvs.getOrDefault(channel, List.of());
            for (int k = 0; k < Math.max(out.size(), in.size()); k++) {
                Half send = k < out.size() ? out.get(k) : null;
                Half recv = k < in.size() ? in.get(k) : null;
                if (recv == null) {
                    report(step, send.op(), reported, diagnostics, "rank " + send.rank() + " sends to rank "
                            + send.peer() + ", which receives nothing more from rank " + send.rank() + " in this "
                            + "step (declared ranks = " + model.ranks() + "); add the matching @Recv");
                } else if (send == null) {
                    report(step, recv.op(), reported, diagnostics, "rank " + recv.rank() + " receives from rank "
                            + recv.peer() + ", which sends nothing more to rank " + recv.rank() + " in this step "
                            + "(declared ranks = " + model.ranks() + "); add the matching @Send");
                } else if (!send.count().equals(recv.count()) || send.type() != recv.type()) {
                    report(step, recv.op(), reported, diagnostics, "rank " + recv.rank() + " receives "
                            + recv.count() + " x " + recv.type() + " from rank " + recv.peer() + ", which sends "
                            + send.count() + " x " + send.type() + "; a send and its receive have the same count "
                            + "and type");
                }
            }
        }
    }

    private static void report(StepDecl step, OpDecl op, Set<OpDecl> reported, Diagnostics diagnostics,
                               String problem) {
        if (reported.add(op)) {
            diagnostics.error(Tag.STEP, op.site(), op.kind().annotation() + " in `" + step.name() + "()`: " + problem
                    + "; unpaired point-to-point ops hang every rank");
        }
    }

    /** The rank at the other end for {@code rank}, or null when the op is no point-to-point op or is malformed. */
    private static Integer peer(PipelineModel model, OpDecl o, int rank) {
        if (!o.kind().isPointToPoint() || o.peer() == null) {
            return null;
        }
        int ranks = model.ranks();
        if (o.peer() == Peer.NEXT) {
            return (rank + 1) % ranks;
        }
        if (o.peer() == Peer.PREVIOUS) {
            return (rank + ranks - 1) % ranks;
        }
        Integer absolute = o.peerRank();
        return absolute == null || absolute < 0 || absolute >= ranks ? null : absolute;
    }
}
