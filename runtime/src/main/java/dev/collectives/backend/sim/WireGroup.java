package dev.collectives.backend.sim;

import dev.collectives.annotation.OpKind;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.bootstrap.Progress;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.ShrinkOrigin;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.bytedeco.javacpp.BytePointer;

/**
 * The group of one rank whose peers are in other processes: each call goes to every rank as a message over the
 * job's {@link Wire} (what the rank passed, and the bytes of its send buffer the others need), and each rank
 * checks all ranks' calls with the same checks as the in-process sim ({@link CallAgreement}, {@link WindowArrival},
 * {@link PointToPoint#mismatch}), then computes its own recv from the contributions. Every decision is taken on
 * the messages in the order the wire's rounds deliver them, which is the same on every rank: a call is complete
 * once all its parties' messages arrived, or failed at the first rank's message that it gave the call up (its
 * timeout passed), so all ranks reach the same verdict. An abort fails the communicator on every rank; a rank whose
 * process dies fails every communicator it is in on the others, who go on and may shrink it away.
 *
 * <p>A child of a split or shrink is a group too, over the same wire: a subset of the parent's ranks with its own
 * numbering and its own calls, whose messages carry the child's id. Every member derives that id alike, from the
 * parent's id and the call that made the child, and attaches the child in the round that completes that call.
 */
final class WireGroup extends CommGroup {
    /** A rank's call (collective, window, send or recv). */
    private static final byte CALL = 1;
    /** A rank gave a call up at its timeout; the body is the reason. */
    private static final byte GIVE_UP = 2;
    /** A rank aborted the communicator; the body is the reason. */
    private static final byte ABORT = 3;

    /** The id of the job's communicator; its children's ids derive from it. */
    private static final long JOB_GROUP = 0;

    private final long id;
    private final int rank;
    /** Each rank here, as the wire numbers it (its rank in the job). */
    private final int[] wireRanks;
    /** Each rank of the job's wire, as numbered here; -1 for those not in this group. */
    private final int[] groupRanks;
    /** The job's ranks here and how this group came to number them, which name a dead rank in its failure. */
    private final JobRanks jobRanks;

    private final Wire wire;
    private final WireGroups groups;
    /** Calls under way, by key, as the wire delivered them; guarded by this group's monitor. */
    private final Map<Wire.Key, WireMeeting> meetings = new HashMap<>();
    /** Calls this rank is done with before all parties' messages came: later messages for them are dropped. */
    private final Set<Wire.Key> finished = new HashSet<>();
    /** Why the wire broke, or null: then not even a shrink can meet the others. Guarded by this group's monitor. */
    private String brokenLink;

    /**
     * Rank {@code rank} of the job's communicator, which holds {@code jobRanks} of the job (all of them, but where the
     * job grew after ranks died): opens the wire over {@code rendezvous}, numbered as the communicator.
     */
    WireGroup(SimConfig config, int rank, Rendezvous rendezvous, JobRanks jobRanks) {
        super(config);
        this.id = JOB_GROUP;
        this.rank = rank;
        this.wireRanks = IntStream.range(0, config.ranks()).toArray();
        this.groupRanks = wireRanks.clone();
        this.jobRanks = jobRanks;
        this.groups = new WireGroups();
        this.wire = new Wire(rendezvous, groups);
        groups.attach(this);
        wire.start();
    }

    /**
     * Rank {@code rank} of the child {@code id} of {@code parent} that holds {@code members} (ranks there), which are
     * {@code jobRanks} of the job.
     */
    private WireGroup(WireGroup parent, long id, List<Integer> members, int rank, JobRanks jobRanks) {
        super(parent.childConfig(members));
        this.id = id;
        this.rank = rank;
        this.wireRanks = members.stream().mapToInt(m -> parent.wireRanks[m]).toArray();
        this.jobRanks = jobRanks;
        this.groupRanks = new int[parent.groupRanks.length];
        Arrays.fill(groupRanks, -1);
        for (int r = 0; r < wireRanks.length; r++) {
            groupRanks[wireRanks[r]] = r;
        }
        this.wire = parent.wire;
        this.groups = parent.groups;
    }

    long id() {
        return id;
    }

    @Override
    Progress.Report reportProgress(Supplier<Progress.Place> place) {
        return wire.reportProgress(place);
    }

    /** Whether this is the job's communicator, numbered as the job: not a child, nor grown after ranks died. */
    boolean isJobGroup() {
        return id == JOB_GROUP && jobRanks.numberedAsTheJob();
    }

    /**
     * Whether the job may grow from this communicator: the job's, or one that its survivors shrank or grew; not a
     * split's child, which holds a part of the job.
     */
    boolean growsTheJob() {
        return !jobRanks.madeBySplit();
    }

    /** Stops the job's wire for a reform, once every survivor asks it ({@link Wire#stopForReform}). */
    Rendezvous stopForReform(Duration timeout) {
        return wire.stopForReform(timeout, rank);
    }

    /**
     * Grows the job by {@code added} processes that join it, once every rank asks it ({@link Wire#grow}); returns the
     * rendezvous of the grown job.
     */
    Rendezvous grow(int added, Duration timeout) {
        return wire.grow(added, timeout, rank);
    }

    /** Whether rank {@code wireRank} of the job is one of this group's ranks. */
    boolean holds(int wireRank) {
        return groupRanks[wireRank] >= 0;
    }

    // ---- the calls -------------------------------------------------------------------------------------------

    @Override
    void collective(int rank, Launched op, long deadline) {
        OpCall call = op.call();
        long bytes = Movement.contribution(call, size());
        if (bytes > Wire.MAX_MESSAGE_BYTES - 4096) {
            throw CollectivesException.usage(
                    rank,
                    call.describe() + ": the sim moves at most 2 GiB per rank and call" + " between processes, not "
                            + bytes + " bytes");
        }
        Wire.Key key = key(WireMeeting.COLLECTIVE, op.seq(), -1, -1);
        Object[] arrivals = meet(key, op.collectiveName(), WireFormat.launched(op, bytes), op, true, deadline).slots;
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
        Object[] arrivals = meet(
                        key(WireMeeting.WINDOW, seq, -1, -1),
                        windowCallName(seq),
                        WireFormat.window(arrival),
                        arrival,
                        true)
                .slots;
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
    Runnable post(int rank, Launched op, long deadline) {
        PointToPoint.Key pair = PointToPoint.keyOf(rank, op);
        Wire.Key key = key(WireMeeting.PAIR, pair.index(), pair.from(), pair.to());
        boolean isSend = op.call().kind() == OpKind.SEND;
        String name = op.pointToPointName(pair);
        WireMeeting meeting = publish(
                key, name, WireFormat.launched(op, isSend ? Movement.contribution(op.call(), size()) : 0), op, true);
        return () -> {
            Object[] sides = outcome(
                    meeting,
                    name,
                    sendMissing -> PointToPoint.unmatched(pair, sendMissing, timeoutText()),
                    true,
                    deadline);
            WireFormat.Contribution send = (WireFormat.Contribution) sides[0];
            WireFormat.Contribution recv = (WireFormat.Contribution) sides[1];
            CallVerdict verdict =
                    PointToPoint.mismatch(pair, send.op().call(), recv.op().call());
            if (verdict != null) {
                throw verdict.toException(rank);
            }
            if (!isSend && send.dataBytes() > 0) {
                Kernels.view(op.call().recv().address(), send.dataBytes())
                        .put(send.body(), send.dataOffset(), send.dataBytes());
            }
        };
    }

    /** Meets every rank's color and key; the round that completes the call forms this rank's child. */
    @Override
    Optional<Member> split(int rank, long seq, int color, int key) {
        int[] colorAndKey = {color, key};
        WireMeeting meeting = meet(
                key(WireMeeting.SPLIT, seq, -1, -1),
                WireMeeting.splitName(seq),
                WireFormat.ints(colorAndKey),
                colorAndKey,
                true);
        return Optional.ofNullable(meeting.child);
    }

    /**
     * Meets the other survivors only, also on an aborted communicator. Survivors that exclude different ranks meet
     * in different calls (the key holds the ranks excluded), and time out naming who is missing.
     */
    @Override
    Member shrink(int rank, long seq, int[] excluded) {
        Wire.Key key = key(WireMeeting.SHRINK, seq, Arrays.hashCode(excluded), -1);
        return meet(key, WireMeeting.shrinkName(seq, excluded), WireFormat.ints(excluded), excluded, false).child;
    }

    /** The round that completed {@code meeting} forms this rank's child, if the call makes one. */
    private Member formChild(WireMeeting meeting) {
        if (meeting.key.space() == WireMeeting.SPLIT) {
            List<SplitArrival> all = new ArrayList<>();
            for (Object arrival : meeting.slots) {
                int[] colorAndKey = (int[]) arrival;
                all.add(new SplitArrival(colorAndKey[0], colorAndKey[1]));
            }
            int color = all.get(rank).color;
            List<Integer> members = childrenByColor(all).get(color);
            return members == null
                    ? null
                    : attachChild(
                            "split #" + meeting.key.seq() + " color " + color,
                            members,
                            jobRanks.split(indices(members), color));
        }
        if (meeting.key.space() == WireMeeting.SHRINK) {
            int[] excluded = meeting.excused.stream().toArray();
            String origin = new ShrinkOrigin(rank, size(), excluded, SimCommunicator.SHRINK_PATH).toString();
            List<Integer> members = survivors(size(), meeting.excused);
            return attachChild(meeting.what, members, jobRanks.child(indices(members), origin));
        }
        return null;
    }

    private static int[] indices(List<Integer> members) {
        return members.stream().mapToInt(m -> m).toArray();
    }

    private Member attachChild(String call, List<Integer> members, JobRanks childRanks) {
        WireGroup child = new WireGroup(this, childId(call), members, members.indexOf(rank), childRanks);
        groups.attach(child);
        return new Member(child, child.rank);
    }

    /** The same on every member: derived from this group's id and the call that made the child. */
    private long childId(String call) {
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256").digest((id + "/" + call).getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(digest).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /** Tells every rank, then fails every pending and later call here. */
    @Override
    void abort(String reason) {
        if (!isAborted()) {
            wire.send(ABORT, key((byte) 0, 0, rank, -1), reason.getBytes(StandardCharsets.UTF_8));
        }
        super.abort(reason);
    }

    /** The wire broke (rank 0 died, the rendezvous failed): every pending and later call here fails. */
    void brokenLink(String reason) {
        synchronized (this) {
            brokenLink = reason;
        }
        super.abort(reason);
    }

    /**
     * One of this group's ranks died: every pending and later call here fails (but a shrink), as on the other
     * survivors, who learn of it in the same round.
     */
    void rankGone(int dead, String reason) {
        super.abort(jobRanks.named(new int[] {dead}, reason));
    }

    /**
     * The job's communicator waits until every rank has closed theirs, then closes the rendezvous; a child only
     * stops taking messages.
     */
    @Override
    void leave(int rank) {
        if (id != JOB_GROUP) {
            groups.detach(this);
            return;
        }
        wire.leave(
                config().timeout(),
                "rank " + rank + " closed its sim communicator, but not every rank closed" + " theirs within "
                        + timeoutText());
    }

    private Wire.Key key(byte space, long seq, int from, int to) {
        return new Wire.Key(id, space, seq, from, to);
    }

    // ---- meeting the other ranks' messages -------------------------------------------------------------------

    /**
     * Sends this rank's part of {@code key} and waits for every party's, which the returned meeting holds by slot.
     * Only an {@code abortable} call fails when the communicator is aborted (a shrink does not). This rank's failures
     * name the call {@code name}.
     */
    private WireMeeting meet(Wire.Key key, String name, byte[] body, Object arrival, boolean abortable) {
        return meet(key, name, body, arrival, abortable, System.nanoTime() + timeoutNanos());
    }

    /** As {@link #meet(Wire.Key, String, byte[], Object, boolean)}, giving the call up at {@code deadline}. */
    private WireMeeting meet(Wire.Key key, String name, byte[] body, Object arrival, boolean abortable, long deadline) {
        WireMeeting meeting = publish(key, name, body, arrival, abortable);
        outcome(
                meeting,
                name,
                ignored -> CallVerdict.timedOut(meeting.what, meeting.ranks(false), meeting.ranks(true), timeoutText()),
                abortable,
                deadline);
        return meeting;
    }

    /** Sends this rank's part of {@code key}, named {@code name}: {@code body}, which the others read as {@code arrival}. */
    private WireMeeting publish(Wire.Key key, String name, byte[] body, Object arrival, boolean abortable) {
        WireMeeting meeting;
        synchronized (this) {
            meeting = meetings.computeIfAbsent(key, k -> WireMeeting.announced(k, arrival, size()));
            if (abortable) {
                requireNotAborted(rank, name);
            }
        }
        wire.send(CALL, key, body);
        return meeting;
    }

    /**
     * Waits for the meeting's outcome. Past {@code deadline} (System.nanoTime) this rank gives the call up, telling the others with the
     * reason {@code timedOut} gives (called with whether the missing side is a send); the outcome is still what the
     * rounds decide, so that every rank takes the same; this rank's failure names the call {@code name}.
     */
    private Object[] outcome(
            WireMeeting meeting,
            String name,
            Function<Boolean, CallVerdict> timedOut,
            boolean abortable,
            long deadline) {
        synchronized (this) {
            try {
                BooleanSupplier over = () -> meeting.decided || brokenLink != null;
                await(
                        rank,
                        over,
                        deadline,
                        () -> wire.send(
                                GIVE_UP,
                                meeting.key,
                                timedOut.apply(meeting.slots[0] == null)
                                        .message()
                                        .getBytes(StandardCharsets.UTF_8)),
                        abortable);
                await(
                        rank,
                        over,
                        System.nanoTime() + timeoutNanos(),
                        () -> meeting.decide(CallVerdict.error(
                                Result.REMOTE_ERROR, meeting.what, "the other ranks' answers did not come")),
                        abortable);
                if (!meeting.decided) {
                    meeting.decide(CallVerdict.error(Result.REMOTE_ERROR, meeting.what, brokenLink));
                }
                if (meeting.failure != null) {
                    CallVerdict verdict = meeting.mineInTime
                            ? meeting.failure
                            : CallVerdict.lateArrival(meeting.what, meeting.failure.message());
                    throw verdict.toException(rank, name);
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

    /** A message, in round order, from rank {@code wireSender} of the job. */
    void received(int wireSender, byte type, Wire.Key key, byte[] body) throws ProtocolException {
        int sender = groupRanks[wireSender];
        if (sender < 0) {
            throw new ProtocolException("rank " + wireSender + " sent a message to a communicator it is not in");
        }
        if (type == ABORT) {
            super.abort(new String(body, StandardCharsets.UTF_8));
            return;
        }
        if (key.space() == WireMeeting.PAIR && key.from() != rank && key.to() != rank) {
            return; // another pair's
        }
        Object arrival = type != CALL
                ? null
                : switch (key.space()) {
                    case WireMeeting.WINDOW -> WireFormat.readWindow(sender, body);
                    case WireMeeting.SPLIT, WireMeeting.SHRINK -> WireFormat.readInts(sender, body);
                    default -> WireFormat.readLaunched(sender, body, size());
                };
        synchronized (this) {
            if (finished.contains(key)) {
                return;
            }
            WireMeeting meeting = meetings.computeIfAbsent(key, k -> WireMeeting.announced(k, arrival, size()));
            if (type == GIVE_UP) {
                meeting.decide(
                        CallVerdict.error(Result.REMOTE_ERROR, meeting.what, new String(body, StandardCharsets.UTF_8)));
            } else if (meeting.arrive(WireMeeting.slot(key, sender, arrival), sender == rank, arrival)) {
                meeting.child = formChild(meeting);
            }
            notifyAll();
        }
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
}
