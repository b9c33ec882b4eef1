package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.Timeouts;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.IOException;
import java.net.ProtocolException;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * What a job's server does, on its loop thread ({@link ServerLoop}), which owns all of it: admits members through its
 * {@link TcpAdmission}, reads their messages, serves their operations ({@link ServedOperation}), beats to them and
 * declares silent ones dead, tells every member of a death, a refusal or the job's end, and ends the job. What other
 * threads wait for it publishes to its {@link JobServer} after each round of events.
 */
final class ServedJob implements ServerLoop.Served {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    final JobServer server;
    final ServerLoop loop;
    final Roster roster;
    final Timeouts timeouts;
    /** How long the ranks may take to join, and each operation. */
    final Duration timeout;

    final Duration heartbeatTimeout;
    /** Who watches the job from outside. */
    final JobObserver observer;

    private final TcpAdmission admission;
    final Liveness liveness;
    private final StallVerdict stalls;
    /** The dumps on demand that clients ask for. */
    final ServedDumps dumps = new ServedDumps(this);

    final LongAdder beatsSent = new LongAdder();
    final LongAdder beatsReceived = new LongAdder();
    private final ServedBeats beats = new ServedBeats(this);

    /** Why the job ended, or null while it runs. */
    Cause fatal;
    /** Whether the server was closed. */
    boolean closed;
    /** Whether a rank ever watched the job: closing it then tells each member, so that its watcher hears no failure. */
    private boolean watched;
    /** The last operation served. */
    int sequence;
    /** The operation under way, or null between operations. */
    private ServedOperation operation;
    /** The ranks whose message for an operation not yet under way waits: the lowest starts the next operation. */
    private final BitSet waiting = new BitSet();
    /** How many ranks left or died: only once every rank has can the job be over. */
    private int departures;

    private boolean advancing;
    private boolean advanceAgain;

    ServedJob(JobServer server, ServerLoop loop, JobToken token, Timeouts timeouts, Duration handshakeLimit, int size) {
        this.server = server;
        this.loop = loop;
        this.timeouts = timeouts;
        this.timeout = timeouts.operation();
        this.heartbeatTimeout = timeouts.heartbeat();
        this.observer = server.view;
        this.roster = new Roster(size, server.hostedByRankZero, server.name);
        this.liveness = new Liveness(timeouts, System::nanoTime);
        this.stalls = new StallVerdict(size, timeouts.stallGrace(), this::hasLeft, loop, this::endJob);
        this.admission = new TcpAdmission(
                token,
                new ServedDoor(this),
                handshakeLimit.compareTo(timeout) < 0 ? handshakeLimit : timeout,
                size,
                loop);
    }

    /** Starts the job's clocks: the deadline for joining, the beats and the watch for silence. */
    void start() {
        loop.after(timeout, this::joinDeadlinePassed);
        loop.after(timeouts.beatInterval(), beats::beat);
        loop.after(timeouts.heartbeat(), beats::watchSilence);
    }

    private boolean hasLeft(int rank) {
        Slot slot = roster.slot(rank);
        return slot != null && slot.fate == Slot.Fate.LEFT;
    }

    @Override
    public void accepted(ServerConnection connection) {
        admission.accepted(connection);
    }

    @Override
    public void readable(ServerConnection connection) throws IOException {
        if (admission.handshaking(connection)) {
            admission.readable(connection);
        }
        if (dumps.serves(connection)) {
            dumps.readable(connection);
            return;
        }
        Slot slot = connection.slot;
        while (slot != null && !connection.isClosed()) {
            Channel.Frame frame;
            try {
                frame = connection.nextFrame(Rendezvous.MAX_VALUE_BYTES);
                if (frame == null) {
                    return;
                }
                FrameRules.check(slot.phase(), frame);
                received(slot, frame);
            } catch (ProtocolException e) {
                fence(slot, Cause.Kind.MISBEHAVED, "it sent " + e.getMessage());
                return;
            }
        }
    }

    @Override
    public void ended(ServerConnection connection, IOException cause) {
        if (admission.handshaking(connection)) {
            admission.ended(connection, cause);
            return;
        }
        if (dumps.serves(connection)) {
            dumps.ended(connection, cause);
            return;
        }
        Slot slot = connection.slot;
        connection.close();
        if (slot != null) {
            declareDead(slot, Cause.Kind.DIED, when -> "its connection ended " + when + " (" + cause + ")", null);
        }
    }

    @Override
    public void afterEvents() {
        boolean over = departures >= roster.size() && roster.over();
        server.publish(new JobServer.Seen(
                fatal,
                closed,
                roster.complete(),
                over,
                operation == null ? -1 : operation.awaited(),
                roster.joining().size()));
        if (closed && !loop.listening() && roster.slots().allMatch(s -> s.connection.isClosed())) {
            loop.stop();
        }
    }

    private void received(Slot slot, Channel.Frame frame) throws ProtocolException {
        if (slot.connection.isClosed()) {
            return;
        }
        liveness.heard(slot.rank);
        switch (frame.type()) {
            case HEARTBEAT -> beats.heard(slot, frame);
            case ABORT ->
                endJob(Cause.of(
                        Cause.Kind.ABORTED,
                        slot.connection.peer() + " ended the job: "
                                + frame.cause().text(),
                        slot.rank));
            case LEAVE -> leave(slot);
            case STALL -> stalls.stalled(slot.rank, frame.cause().text());
            case WATCH -> {
                watched = true;
                Cause unheard = roster.watch(slot);
                if (unheard != null) {
                    send(slot, FrameType.GONE, unheard.bytes());
                }
            }
            case UNWATCH -> {
                if (slot.watching) { // one that heard of a death since it watched was told its watch ended
                    slot.watching = false;
                    send(slot, FrameType.UNWATCH, new byte[0]);
                }
            }
            case DUMPED -> dumps.answered(slot.rank, frame);
            default -> deliver(slot, frame); // an operation's message
        }
    }

    private void leave(Slot slot) {
        if (slot.fate == Slot.Fate.JOINING_BY_GROWTH) {
            dropJoining(
                    slot,
                    Cause.of(
                            Cause.Kind.DIED,
                            slot.connection.peer() + " closed its rendezvous before the job grew",
                            slot.rank));
        } else {
            slot.fate = Slot.Fate.LEFT;
            observer.gone(slot.rank, JobObserver.Fate.LEFT, "it closed its rendezvous", System.nanoTime());
            departures++;
            liveness.forget(slot.rank);
            advance();
        }
        slot.connection.closeWhenSent();
    }

    private void deliver(Slot slot, Channel.Frame frame) {
        if (slot.inbox != null) {
            fence(
                    slot,
                    Cause.Kind.MISBEHAVED,
                    "it sent a message for operation #" + frame.operation() + " before its message for "
                            + "the operation before was used");
            return;
        }
        slot.inbox = frame;
        roster.operating(slot);
        if (slot.fate != Slot.Fate.JOINING_BY_GROWTH) {
            waiting.set(slot.rank);
        }
        advance();
    }

    /** {@code operation} was answered: the ranks that took part go on. */
    void answered(ServedOperation operation) {
        observer.operationAnswered(operation.name, System.nanoTime());
    }

    /** Member {@code slot}'s message for the operation under way, taken. */
    Channel.Frame take(Slot slot) {
        Channel.Frame frame = slot.inbox;
        slot.inbox = null;
        waiting.clear(slot.rank);
        return frame;
    }

    /**
     * Moves the job on after an event: the operation under way goes as far as the messages allow, and once it is
     * answered the next one starts where a rank's first message for it waits.
     */
    void advance() {
        if (advancing) { // an event of the operation's own making: the round under way goes on
            advanceAgain = true;
            return;
        }
        advancing = true;
        try {
            do {
                advanceAgain = false;
                advanceOnce();
            } while (advanceAgain);
        } finally {
            advancing = false;
        }
    }

    private void advanceOnce() {
        while (fatal == null && !closed && roster.complete()) {
            if (operation == null) {
                int first = waiting.nextSetBit(0);
                if (first < 0 || first >= roster.size()) {
                    return;
                }
                Channel.Frame frame = roster.slot(first).inbox;
                operation = ServedOperation.of(this, frame.operation(), frame.type());
                observer.operationStarted(operation.name, System.nanoTime());
            }
            try {
                if (!operation.advance()) {
                    return;
                }
            } catch (IllegalStateException ended) {
                return; // the job ended: every member was told why
            } finally {
                if (fatal != null || (operation != null && operation.done())) {
                    operation = null;
                }
            }
        }
    }

    /** The job grew to {@code size}: the processes taken in are its ranks, and have heard of every death so far. */
    void grow(int size) {
        int before = roster.size();
        observer.size(size, System.nanoTime());
        roster.grow(size);
        stalls.grow(size);
        for (int r = before; r < size; r++) {
            roster.operating(roster.slot(r));
        }
    }

    /** When something happens, for messages: "while the ranks were joining", "during allgather #2". */
    private String when() {
        return !roster.complete()
                ? "while the ranks were joining"
                : operation != null ? "during " + operation.name : "while the job ran";
    }

    /**
     * Declares {@code slot}'s rank dead and excludes it from the job: it was silent past the heartbeat timeout, did
     * not read what it was sent, or sent what a member may not. It hears why (where it still reads) and its
     * connection closes; if it wakes, asking tells it the same; only a replacement may take its place.
     */
    void fence(Slot slot, Cause.Kind kind, String why) {
        boolean joining = slot.fate == Slot.Fate.JOINING_BY_GROWTH;
        String exclusion = "rank " + slot.rank + " was excluded from the job at " + server.endpoint() + ": " + why
                + (joining ? "; it no longer waits to join" : "; only a replacement may take its place");
        if (declareDead(slot, kind, when -> why + " " + when, exclusion)) {
            send(slot, FrameType.FENCED, Cause.of(kind, exclusion, slot.rank).bytes());
            closeSoon(slot.connection);
        }
    }

    /**
     * Declares the death of {@code slot}'s rank, {@code how} it died given when ("during allgather #2"), excluded for
     * {@code exclusion} where not null: every survivor that watches hears of it at once, the others at their next
     * operation; before every rank joined, it ends the job. Returns false where the job had ended, the rank had left
     * or its death was declared already.
     */
    private boolean declareDead(Slot slot, Cause.Kind kind, Function<String, String> how, String exclusion) {
        if (closed || fatal != null || slot.fate == Slot.Fate.LEFT || slot.why != null) {
            return false;
        }
        if (slot.fate == Slot.Fate.JOINING_BY_GROWTH) { // not a rank yet: no news to the members
            slot.exclusion = exclusion;
            dropJoining(
                    slot,
                    Cause.of(
                            kind, slot.connection.peer() + " is gone: " + how.apply("before the job grew"), slot.rank));
            return true;
        }
        liveness.forget(slot.rank);
        slot.exclusion = exclusion;
        slot.fate = exclusion != null ? Slot.Fate.FENCED : Slot.Fate.DEAD;
        Cause reason = Cause.of(kind, slot.connection.peer() + " is gone: " + how.apply(when()), slot.rank);
        slot.why = reason;
        observer.gone(
                slot.rank,
                exclusion != null ? JobObserver.Fate.FENCED : JobObserver.Fate.DIED,
                reason.text(),
                System.nanoTime());
        departures++;
        if (!roster.complete()) {
            endJob(reason);
            return true;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "at " + server.endpoint() + ": " + reason);
        byte[] bytes = reason.bytes();
        List<Slot> watchers = roster.died(slot, reason);
        server.published(roster.deaths()); // before anyone hears of it
        watchers.forEach(watcher -> send(watcher, FrameType.GONE, bytes));
        advance();
        return true;
    }

    /**
     * The process waiting to join as {@code slot}'s number no longer does, for {@code reason}: it died, left, or was
     * turned away. A growth that waits for it hears why; its number is free for another.
     */
    void dropJoining(Slot slot, Cause reason) {
        slot.why = reason;
        liveness.forget(slot.rank);
        roster.dropJoining(slot);
        advance();
    }

    /** Sends {@code slot} a message, numbered as the last operation served. */
    void send(Slot slot, FrameType type, byte[] bytes) {
        send(slot, type, bytes, sequence);
    }

    /**
     * Sends {@code slot} a message for operation {@code number}; one that has too many waiting already is fenced as
     * not reading (in the loop's next round, not inside what sends to every member).
     */
    void send(Slot slot, FrameType type, byte[] bytes, int number) {
        if (!slot.connection.send(type, number, bytes) && slot.why == null) {
            loop.execute(() -> fence(
                    slot,
                    Cause.Kind.SILENT,
                    "it did not read what the server sent it: " + ServerConnection.MAX_QUEUED_FRAMES
                            + " messages waited for it (it stopped reading)"));
        }
    }

    /**
     * Tells {@code slot} why the job ended: "rank 0 ended the job: {@code reason}", or the standalone server did; the
     * reason alone to rank 0 where its process hosts the server ("rank 0 ended the job" would name itself).
     */
    void tellEnded(Slot slot, Cause reason) {
        boolean plain = server.hostedByRankZero && slot.rank == 0;
        String endedBy = server.hostedByRankZero ? "rank 0" : server.name;
        send(
                slot,
                FrameType.ABORT,
                (plain ? reason : reason.withText(endedBy + " ended the job: " + reason.text())).bytes());
    }

    /** Closes {@code connection} once what waits for it went out, or a second after at most. */
    void closeSoon(ServerConnection connection) {
        connection.closeWhenSent();
        loop.after(timeouts.notice(), connection::close);
    }

    private void joinDeadlinePassed() {
        if (fatal == null && !closed && !roster.complete()) {
            endJob(Cause.of(
                    Cause.Kind.NEVER_JOINED,
                    roster.missing() + " did not join at " + server.endpoint() + " within "
                            + Settings.formatDuration(timeout) + admission.turnedAway(),
                    roster.missingRanks()));
        }
    }

    /** Where the survivors wait for replacements in vain: what the server turned away may say why. */
    String turnedAway() {
        return admission.turnedAway();
    }

    /**
     * Ends the job once, for the first reason: every member, and every process waiting to join, is told why, so that
     * those waiting inside an operation fail at once.
     */
    void endJob(Cause reason) {
        if (fatal != null) {
            return;
        }
        fatal = reason;
        operation = null;
        observer.ended(reason.text(), System.nanoTime());
        LOG.log(System.Logger.Level.DEBUG, () -> "the job at " + server.endpoint() + " ended: " + reason);
        roster.slots().filter(slot -> !slot.connection.isClosed()).forEach(slot -> tellEnded(slot, reason));
    }

    /**
     * Stops serving. Where rank 0 hosts it and closes a watched job that ran to its end, each other member hears so
     * (or of a death it has not heard of yet), so that its watcher takes it for no failure. Every connection closes
     * once what waits for it went out. The listening socket closes now, unless the job failed while ranks were
     * missing: then it stays until each of them has been told why, or until {@code lateUntil}; returns whether it
     * does.
     */
    boolean close(Deadline lateUntil) {
        if (closed) {
            return false;
        }
        closed = true;
        takeInWhatArrived();
        boolean answeringLate = fatal != null && roster.lateRanksUntold();
        if (answeringLate) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> "at " + server.endpoint() + ", " + roster.missing()
                            + " are answered with why the job ended until they arrive or " + lateUntil.remainingMillis()
                            + " ms have passed");
            loop.after(Duration.ofMillis(lateUntil.remainingMillis()), loop::stopListening);
        } else {
            loop.stopListening();
        }
        if (server.hostedByRankZero && watched && fatal == null) {
            roster.slots()
                    .filter(s -> s.rank > 0 && s.fate == Slot.Fate.ALIVE && !s.connection.isClosed())
                    .forEach(slot -> {
                        Cause unheard = roster.unheard(slot);
                        send(
                                slot,
                                unheard != null ? FrameType.GONE : FrameType.LEAVE,
                                unheard != null ? unheard.bytes() : new byte[0]);
                    });
        }
        roster.slots().forEach(slot -> closeSoon(slot.connection));
        return answeringLate;
    }

    /**
     * Handles what the members sent before the server closes (rank 0's own WATCH, sent before it closed, above all):
     * whether the job was watched decides what each member hears.
     */
    private void takeInWhatArrived() {
        roster.slots().map(slot -> slot.connection).filter(c -> !c.isClosed()).forEach(connection -> {
            connection.readWhatArrived();
            try {
                readable(connection);
            } catch (IOException e) {
                ended(connection, e);
            }
        });
    }
}
