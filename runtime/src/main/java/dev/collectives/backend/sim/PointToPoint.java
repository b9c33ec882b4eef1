package dev.collectives.backend.sim;

import dev.collectives.runtime.Result;
import dev.collectives.runtime.Rule;

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

    /** Posts {@code op} (a send or recv of {@code rank}); returns the pair to {@link #await} later. */
    Pair post(int rank, Launched op) {
        OpCall call = op.call();
        boolean isSend = call.kind() == OpKind.SEND;
        Key key = isSend ? new Key(rank, call.peer(), op.seq()) : new Key(call.peer(), rank, op.seq());
        Pair pair;
        synchronized (group) {
            group.requireNotAborted(rank, call.describe());
            pair = pairs.computeIfAbsent(key, k -> new Pair(k, System.nanoTime() + group.timeoutNanos()));
            if (pair.verdict != null) {
                throw pair.verdict.toException(rank);
            }
            if (isSend) {
                pair.send = call;
            } else {
                pair.recv = call;
            }
            if (pair.send == null || pair.recv == null) {
                return pair;
            }
            if (pair.send.count() != pair.recv.count() || pair.send.type() != pair.recv.type()) {
                pair.verdict = Verdict.violation(Rule.R14_SHAPE, key + ": the send is " + pair.send.describe()
                        + " but the recv is " + pair.recv.describe() + "; count and type must match");
                group.notifyAll();
                throw pair.verdict.toException(rank);
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

    /** Waits until the pair's data has moved; fails on a mismatch, an abort, or when the peer never posts. */
    void await(int rank, Pair pair) {
        synchronized (group) {
            long deadline = pair.deadline;
            while (!pair.done && pair.verdict == null) {
                group.await(rank, () -> pair.done || pair.verdict != null, deadline, () -> {
                    if (!pair.moving) {
                        int missing = pair.send == null ? pair.key.from : pair.key.to;
                        String side = pair.send == null ? "send" : "recv";
                        pair.verdict = Verdict.error(Result.REMOTE_ERROR, pair.key.toString(), "rank " + missing
                                + " posted no matching " + side + " within " + group.timeoutText());
                    }
                });
                deadline = System.nanoTime() + group.timeoutNanos(); // the data is moving: give it time
            }
            if (pair.verdict != null) {
                throw pair.verdict.toException(rank);
            }
        }
    }

    private record Key(int from, int to, long index) {
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
        private Verdict verdict;

        private Pair(Key key, long deadline) {
            this.key = key;
            this.deadline = deadline;
        }
    }
}
