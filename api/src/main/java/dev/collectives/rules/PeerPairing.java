package dev.collectives.rules;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Whether the sends and receives of one step pair up across ranks ({@code [DSL step]}): every rank runs the step's
 * group, and rank r's k-th send to rank d must meet rank d's k-th receive from rank r, with the same count and type,
 * or both ranks wait for ever. One algorithm for both places that check it: the annotation processor where
 * {@code ranks} is declared, the generated {@code bind} (through {@code requirePaired}) with the
 * communicator's size where it is not. It uses only the JDK and the annotations, so that the processor may.
 */
public final class PeerPairing {
    /** The tag of the messages about it (and about other step declarations only bind can check), as the processor
     * reports it. */
    public static final String TAG = "[DSL step]";
    /** The section of the rules page about it. */
    public static final String ANCHOR = "docs/rules.md#dsl-step";

    private PeerPairing() {}

    /**
     * A point-to-point op of a step, as every rank issues it.
     *
     * @param index    its position among the step's ops, from 0 (messages count from 1: "@Send #1")
     * @param kind     {@link OpKind#SEND} or {@link OpKind#RECV}
     * @param peer     the other end, resolved on each rank with {@link Peer#resolve}
     * @param peerRank the rank of {@link Peer#ABSOLUTE}; a rank outside the communicator is not paired (it is an
     *                 error of its own)
     * @param count    elements sent or received; null where only the step's call knows it (then only the type is
     *                 compared)
     */
    public record Op(int index, OpKind kind, Peer peer, int peerRank, Long count, DataType type) {
        public Op {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(peer, "peer");
            Objects.requireNonNull(type, "type");
            if (!kind.isPointToPoint()) {
                throw new IllegalArgumentException(kind.annotation() + " is not a point-to-point op");
            }
        }

        public static Op send(int index, Peer peer, int peerRank, Long count, DataType type) {
            return new Op(index, OpKind.SEND, peer, peerRank, count, type);
        }

        public static Op recv(int index, Peer peer, int peerRank, Long count, DataType type) {
            return new Op(index, OpKind.RECV, peer, peerRank, count, type);
        }

        /** Whether it sends (else it receives). */
        public boolean sends() {
            return kind.hasSend();
        }

        /** "@Send #1": the op as messages name it, counting from 1. */
        public String label() {
            return kind.annotation() + " #" + (index + 1);
        }

        private String amount() {
            return count == null ? type.toString() : count + " x " + type;
        }
    }

    /**
     * An op that cannot pair, and why.
     *
     * @param op      its position in the list given to {@link #unpaired}
     * @param problem which ranks wait for what, ending with the fix and the consequence
     */
    public record Unpaired(int op, String problem) {}

    /** One op as issued by one rank, with the rank at the other end. */
    private record Half(int op, int rank, int peer, Op declared) {}

    /**
     * The ops of one step (its point-to-point ops, in the order they are issued) that cannot pair on a communicator
     * of {@code ranks} ranks, each reported once, by its first problem; empty when every op pairs.
     */
    public static List<Unpaired> unpaired(List<Op> ops, int ranks) {
        // (sender, receiver) -> the sends on that channel, and the receives on it, in issue order
        Map<List<Integer>, List<Half>> sends = new LinkedHashMap<>();
        Map<List<Integer>, List<Half>> recvs = new LinkedHashMap<>();
        for (int rank = 0; rank < ranks; rank++) {
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                int peer = op.peer().resolve(rank, ranks, op.peerRank());
                if (peer < 0 || peer >= ranks) {
                    continue;
                }
                Half half = new Half(i, rank, peer, op);
                if (op.sends()) {
                    sends.computeIfAbsent(List.of(rank, peer), k -> new ArrayList<>())
                            .add(half);
                } else {
                    recvs.computeIfAbsent(List.of(peer, rank), k -> new ArrayList<>())
                            .add(half);
                }
            }
        }
        String context = " in this step with " + ranks + (ranks == 1 ? " rank" : " ranks");
        Map<Integer, String> problems = new LinkedHashMap<>();
        Set<List<Integer>> channels = new LinkedHashSet<>(sends.keySet());
        channels.addAll(recvs.keySet());
        for (List<Integer> channel : channels) {
            List<Half> out = sends.getOrDefault(channel, List.of());
            List<Half> in = recvs.getOrDefault(channel, List.of());
            for (int k = 0; k < Math.max(out.size(), in.size()); k++) {
                Half send = k < out.size() ? out.get(k) : null;
                Half recv = k < in.size() ? in.get(k) : null;
                if (recv == null) {
                    problems.putIfAbsent(
                            send.op(),
                            "rank " + send.rank() + " sends to rank " + send.peer()
                                    + ", which receives nothing more from rank " + send.rank() + context
                                    + "; add the matching " + OpKind.RECV.annotation());
                } else if (send == null) {
                    problems.putIfAbsent(
                            recv.op(),
                            "rank " + recv.rank() + " receives from rank " + recv.peer()
                                    + ", which sends nothing more to rank " + recv.rank() + context
                                    + "; add the matching " + OpKind.SEND.annotation());
                } else if (!matches(send.declared(), recv.declared())) {
                    problems.putIfAbsent(
                            recv.op(),
                            "rank " + recv.rank() + " receives "
                                    + recv.declared().amount() + " from rank " + recv.peer() + ", which sends "
                                    + send.declared().amount() + context
                                    + "; a send and its receive have the same count "
                                    + "and type");
                }
            }
        }
        List<Unpaired> unpaired = new ArrayList<>(problems.size());
        problems.forEach((op, problem) ->
                unpaired.add(new Unpaired(op, problem + "; unpaired point-to-point ops hang every rank")));
        return unpaired;
    }

    private static boolean matches(Op send, Op recv) {
        return send.type() == recv.type()
                && (send.count() == null || recv.count() == null || send.count().equals(recv.count()));
    }
}
