package dev.collectives.backend.sim;

import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.bootstrap.Rendezvous;


import org.bytedeco.javacpp.BytePointer;

import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The group of one rank whose peers are in other processes: each call goes to every rank as a message over the
 * job's {@link Wire} (what the rank passed, and the bytes of its send buffer the others need), and each rank
 * checks all ranks' calls with the same checks as the in-process sim ({@link CallAgreement}, {@link WindowArrival},
 * {@link PointToPoint#mismatch}), then computes its own recv from the contributions. Every decision is taken on
 * the messages in the order the wire's rounds deliver them, which is the same on every rank: a call is complete
 * once all its parties' messages arrived, or failed at the first rank's message that it gave the call up (its
 * timeout passed), so all ranks reach the same verdict. An abort, and a rank that dies, end the job on every rank.
 */
final class WireGroup extends CommGroup {
    private static final byte COLLECTIVE = 1;
    private static final byte WINDOW = 2;
    private static final byte PAIR = 3;

    /** A rank's call (collective, window, send or recv). */
    private static final byte CALL = 1;
    /** A rank gave a call up at its timeout; the body is the reason. */
    private static final byte GIVE_UP = 2;
    /** A rank aborted the communicator; the body is the reason. */
    private static final byte ABORT = 3;

    private final int rank;
    private final Wire wire;
    /** Calls under way, by key, as the wire delivered them; guarded by this group's monitor. */
    private final Map<Wire.Key, Meeting> meetings = new HashMap<>();
    /** Calls this rank is done with before all parties' messages came: later messages for them are dropped. */
    private final Set<Wire.Key> finished = new HashSet<>();

    WireGroup(SimConfig config, int rank, Rendezvous rendezvous) {
        super(config);
        this.rank = rank;
        this.wire = new Wire(rendezvous, new Wire.Receiver() {
            @Override
            public void deliver(int sender, byte type, Wire.Key key, byte[] body) throws ProtocolException {
                received(sender, type, key, body);
            }

            @Override
            public void failed(String reason) {
                WireGroup.super.abort(reason);
            }
        });
        wire.start();
    }

    // ---- the calls -------------------------------------------------------------------------------------------

    @Override
    void collective(int rank, Launched op) {
        OpCall call = op.call();
        long bytes = Movement.contribution(call, size());
        if (bytes > Wire.MAX_MESSAGE_BYTES - 4096) {
            throw CollectivesException.usage(rank, call.describe() + ": the sim moves at most 2 GiB per rank and call"
                    + " between processes, not " + bytes + " bytes");
        }
        Wire.Key key = new Wire.Key(COLLECTIVE, op.seq(), -1, -1);
        Object[] arrivals = meet(key, collectiveName(op.seq()), WireFormat.launched(op, bytes));
        List<Launched> all = new ArrayList<>(arrivals.length);
        for (Object arrival : arrivals) {
            all.add(((WireFormat.Contribution) arrival).op());
        }
        CallVerdict verdict = CallAgreement.check(all, config().capabilities().mtlinkSharp());
        if (verdict != null) {
            throw verdict.toException(rank);
        }
        List<BytePointer> staged = new ArrayList<>();
        try {
            long[] sources = new long[arrivals.length];
            for (int q = 0; q < arrivals.length; q++) {
                sources[q] = stage((WireFormat.Contribution) arrivals[q], staged);
            }
            Movement.fromContributions(rank, call, sources);
        } finally {
            staged.forEach(BytePointer::close);
        }
    }

    @Override
    List<WindowArrival> windowCall(int rank, long seq, WindowArrival arrival) {
        Object[] arrivals = meet(new Wire.Key(WINDOW, seq, -1, -1), windowCallName(seq), WireFormat.window(arrival));
        List<WindowArrival> all = new ArrayList<>(arrivals.length);
        for (Object a : arrivals) {
            all.add((WindowArrival) a);
        }
        CallVerdict verdict = WindowArrival.check(all);
        if (verdict != null) {
            throw verdict.toException(rank);
        }
        return all;
    }

    @Override
    Runnable post(int rank, Launched op) {
        PointToPoint.Key pair = PointToPoint.keyOf(rank, op);
        Wire.Key key = new Wire.Key(PAIR, pair.index(), pair.from(), pair.to());
        boolean isSend = op.call().kind() == CallKind.SEND;
        Meeting meeting = publish(key, pair.toString(), WireFormat.launched(op,
                isSend ? Movement.contribution(op.call(), size()) : 0));
        return () -> {
            Object[] sides = outcome(meeting, sendMissing -> PointToPoint.unmatched(pair, sendMissing, timeoutText()));
            WireFormat.Contribution send = (WireFormat.Contribution) sides[0];
            WireFormat.Contribution recv = (WireFormat.Contribution) sides[1];
            CallVerdict verdict = PointToPoint.mismatch(pair, send.op().call(), recv.op().call());
            if (verdict != null) {
                throw verdict.toException(rank);
            }
            if (!isSend && send.dataBytes() > 0) {
                Kernels.view(op.call().recv().address(), send.dataBytes()).put(send.body(), send.dataOffset(),
                        send.dataBytes());
            }
        };
    }

    @Override
    Optional<Member> split(int rank, long seq, int color, int key) {
        throw acrossProcesses(rank, "split");
    }

    @Override
    Member shrink(int rank, long seq, int[] excluded) {
        throw acrossProcesses(rank, "shrink");
    }

    private static CollectivesException acrossProcesses(int rank, String call) {
        return CollectivesException.usage(rank, call + " is not available on sim ranks in several processes: the sim"
                + " makes child communicators of ranks that are threads of one process");
    }

    /** Tells every rank, then fails every pending and later call here. */
    @Override
    void abort(String reason) {
        if (!isAborted()) {
            wire.send(ABORT, new Wire.Key((byte) 0, 0, rank, -1), reason.getBytes(StandardCharsets.UTF_8));
        }
        super.abort(reason);
    }

    /** Waits until every rank has closed its communicator, then closes the rendezvous. */
    @Override
    void leave(int rank) {
        wire.leave(config().timeout(), "rank " + rank + " closed its sim communicator, but not every rank closed"
                + " theirs within " + timeoutText());
    }

    // ---- meeting the other ranks' messages -------------------------------------------------------------------

    /** Sends this rank's part of {@code key} and waits for every party's; returns them, indexed by slot. */
    private Object[] meet(Wire.Key key, String what, byte[] body) {
        Meeting meeting = publish(key, what, body);
        return outcome(meeting, ignored -> CallVerdict.timedOut(what, meeting.ranks(false), meeting.ranks(true),
                timeoutText()));
    }

    private Meeting publish(Wire.Key key, String what, byte[] body) {
        Meeting meeting;
        synchronized (this) {
            requireNotAborted(rank, what);
            meeting = meetings.computeIfAbsent(key, k -> new Meeting(k, what, parties(k)));
        }
        wire.send(CALL, key, body);
        return meeting;
    }

    /**
     * Waits for the meeting's outcome. Past the timeout this rank gives the call up, telling the others with the
     * reason {@code timedOut} gives (called with whether the missing side is a send); the outcome is still what the
     * rounds decide, so that every rank takes the same.
     */
    private Object[] outcome(Meeting meeting, Function<Boolean, CallVerdict> timedOut) {
        synchronized (this) {
            try {
                await(rank, () -> meeting.decided, System.nanoTime() + timeoutNanos(), () -> wire.send(GIVE_UP,
                        meeting.key, timedOut.apply(meeting.slots[0] == null).message()
                                .getBytes(StandardCharsets.UTF_8)));
                await(rank, () -> meeting.decided, System.nanoTime() + timeoutNanos(), () -> meeting.decide(
                        CallVerdict.error(Result.REMOTE_ERROR, meeting.what, "the other ranks' answers did not come")));
                if (meeting.failure != null) {
                    CallVerdict verdict = meeting.mineInTime ? meeting.failure
                            : CallVerdict.lateArrival(meeting.what, meeting.failure.message());
                    throw verdict.toException(rank);
                }
                return meeting.slots.clone();
            } finally {
                meetings.remove(meeting.key);
                if (!meeting.complete()) {
                    finished.add(meeting.key);
                }
            }
        }
    }

    /** A message, in round order. */
    private void received(int sender, byte type, Wire.Key key, byte[] body) throws ProtocolException {
        if (type == ABORT) {
            super.abort(new String(body, StandardCharsets.UTF_8));
            return;
        }
        if (key.space() == PAIR && key.from() != rank && key.to() != rank) {
            return; // another pair's
        }
        Object arrival = type != CALL ? null : key.space() == WINDOW ? WireFormat.readWindow(sender, body)
                : WireFormat.readLaunched(sender, body, size());
        synchronized (this) {
            if (finished.contains(key)) {
                return;
            }
            Meeting meeting = meetings.computeIfAbsent(key, k -> new Meeting(k, whatOf(k), parties(k)));
            if (type == GIVE_UP) {
                meeting.decide(CallVerdict.error(Result.REMOTE_ERROR, meeting.what,
                        new String(body, StandardCharsets.UTF_8)));
            } else {
                meeting.arrive(slot(key, sender, arrival), sender == rank, arrival);
            }
            notifyAll();
        }
    }

    private int parties(Wire.Key key) {
        return key.space() == PAIR ? 2 : size();
    }

    /** A pair's slots are its send and its recv (a rank may send to itself); a collective's, the ranks. */
    private static int slot(Wire.Key key, int sender, Object arrival) {
        if (key.space() != PAIR) {
            return sender;
        }
        return ((WireFormat.Contribution) arrival).op().call().kind() == CallKind.SEND ? 0 : 1;
    }

    private static String whatOf(Wire.Key key) {
        return switch (key.space()) {
            case COLLECTIVE -> collectiveName(key.seq());
            case WINDOW -> windowCallName(key.seq());
            default -> new PointToPoint.Key(key.from(), key.to(), key.seq()).toString();
        };
    }

    /** The contribution's data in native memory (freed by the caller), or 0 when it has none. */
    private long stage(WireFormat.Contribution c, List<BytePointer> staged) {
        if (c.dataBytes() == 0) {
            return 0;
        }
        BytePointer p = new BytePointer(c.dataBytes());
        p.put(c.body(), c.dataOffset(), c.dataBytes());
        staged.add(p);
        return p.address();
    }

    /** One call as the rounds decide it: complete when all parties' messages came, failed at the first give-up. */
    private static final class Meeting {
        final Wire.Key key;
        final String what;
        final Object[] slots;
        int arrived;
        boolean decided;
        CallVerdict failure;
        /** Whether this rank's own message came before the outcome (else it arrived late). */
        boolean mineInTime;

        Meeting(Wire.Key key, String what, int parties) {
            this.key = key;
            this.what = what;
            this.slots = new Object[parties];
        }

        void arrive(int slot, boolean mine, Object arrival) {
            if (slots[slot] == null) {
                arrived++;
            }
            slots[slot] = arrival;
            if (!decided) {
                mineInTime |= mine;
                if (arrived == slots.length) {
                    decided = true;
                }
            }
        }

        void decide(CallVerdict verdict) {
            if (!decided) {
                decided = true;
                failure = verdict;
            }
        }

        boolean complete() {
            return arrived == slots.length;
        }

        /** The slots (ranks, for a collective) whose message has come ({@code present}) or not. */
        List<Integer> ranks(boolean present) {
            List<Integer> ranks = new ArrayList<>();
            for (int r = 0; r < slots.length; r++) {
                if ((slots[r] != null) == present) {
                    ranks.add(r);
                }
            }
            return ranks;
        }
    }
}
