package dev.collectives.backend.sim;

import dev.collectives.annotation.OpKind;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.rules.Message;
import dev.collectives.runtime.Result;
import java.util.HashMap;
import java.util.Map;

/**
 * Send/recv matching: the k-th send from rank a to rank b meets the k-th recv on rank b from rank a. Posting does
 * not block, so that a group can post all its sends and recvs before waiting for any (which is what makes any
 * order within a group work); whichever side posts second moves the data. Guarded by the group's monitor.
 */
final class PointToPoint {
    private final CommGroup group;
    private final Map<Key, Pair> pairs = new HashMap<>();

    PointToPoint(CommGroup group) {
        this.group = group;
    }

    /**
     * Posts {@code op} (a send or recv of {@code rank}), whose peer has until {@code deadline} (System.nanoTime; the
     * step's, where the pair is new) to post its side; returns the pair to {@link #await} later.
     */
    Pair post(int rank, Launched op, long deadline) {
        OpCall call = op.call();
        boolean isSend = call.kind() == OpKind.SEND;
        Key key = keyOf(rank, op);
        Pair pair;
        synchronized (group) {
            group.requireNotAborted(rank, call.describe());
            pair = pairs.computeIfAbsent(key, k -> new Pair(k, deadline));
            if (pair.verdict != null) {
                throw pair.verdict.toException(rank, op.pointToPointName(key));
            }
            if (isSend) {
                pair.send = call;
            } else {
                pair.recv = call;
            }
            if (pair.send == null || pair.recv == null) {
                return pair;
            }
            pair.verdict = mismatch(key, pair.send, pair.recv);
            if (pair.verdict != null) {
                group.notifyAll();
                throw pair.verdict.toException(rank, op.pointToPointName(key));
            }
            pair.moving = true;
        }
        try {
            long bytes = pair.send.count() * pair.send.type().size();
            if (bytes > 0 && pair.send.send().address() != pair.recv.recv().address()) {
                Kernels.copy(pair.send.send().address(), pair.recv.recv().address(), bytes);
            }
        } finally {
            synchronized (group) {
                pair.done = true;
                pairs.remove(key);
                group.notifyAll();
            }
        }
        return pair;
    }

    /**
     * Waits until the pair's data has moved; fails on a mismatch, an abort, or when the peer never posts, naming
     * the call as rank {@code rank} knows it, {@code op}.
     */
    void await(int rank, Launched op, Pair pair) {
        synchronized (group) {
            long deadline = pair.deadline;
            while (!pair.done && pair.verdict == null) {
                group.await(rank, () -> pair.done || pair.verdict != null, deadline, () -> {
                    if (!pair.moving) {
                        pair.verdict = unmatched(pair.key, pair.send == null, group.timeoutText());
                    }
                });
                deadline = System.nanoTime() + group.timeoutNanos(); // the data is moving: give it time
            }
            if (pair.verdict != null) {
                throw pair.verdict.toException(rank, op.pointToPointName(pair.key));
            }
        }
    }

    /** R14: a send and its recv must agree on count and type; null when they do. */
    static CallVerdict mismatch(Key key, OpCall send, OpCall recv) {
        if (send.count() == recv.count() && send.type() == recv.type()) {
            return null;
        }
        return CallVerdict.violation(Message.R14_SEND_RECV, key, send.describe(), recv.describe());
    }

    /** The pair's other side was not posted in time: the send ({@code sendMissing}) or the recv. */
    static CallVerdict unmatched(Key key, boolean sendMissing, String timeoutText) {
        return CallVerdict.error(
                Result.REMOTE_ERROR,
                key.toString(),
                "rank " + (sendMissing ? key.from : key.to) + " posted no matching " + (sendMissing ? "send" : "recv")
                        + " within " + timeoutText);
    }

    /** The pair {@code op} of rank {@code rank} belongs to: the {@code index}-th send from {@code from} to {@code to}. */
    static Key keyOf(int rank, Launched op) {
        return op.call().kind() == OpKind.SEND
                ? new Key(rank, op.call().peer(), op.seq())
                : new Key(op.call().peer(), rank, op.seq());
    }

    record Key(int from, int to, long index) {
        @Override
        public String toString() {
            return "send #" + index + " from rank " + from + " to rank " + to;
        }
    }

    /** A send and its recv, as they are posted. */
    static final class Pair {
        private final Key key;
        private final long deadline;
        private OpCall send;
        private OpCall recv;
        private boolean moving;
        private boolean done;
        private CallVerdict verdict;

        private Pair(Key key, long deadline) {
            this.key = key;
            this.deadline = deadline;
        }
    }
}
