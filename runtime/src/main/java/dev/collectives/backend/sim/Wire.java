package dev.collectives.backend.sim;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.bootstrap.Progress;
import dev.collectives.runtime.bootstrap.Rendezvous;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One rank's link to the ranks of its job in other processes: the job's bootstrap rendezvous, kept open as the
 * data plane for the communicator's life. Messages are keyed (what they belong to: a collective call, a window
 * call, a send/recv pair), so that calls made by stream workers and host threads, in whatever order each process
 * makes them, meet the right counterparts.
 *
 * <p>A pump thread is the only user of the rendezvous, whose operations every rank must call in the same order:
 * it runs rounds, each an allgather of how many bytes every rank has to send (and whether it is leaving), then,
 * if any has, an allgather of the bytes. A message larger than a round's share ({@link Rendezvous#MAX_VALUE_BYTES},
 * less for jobs above 256 ranks so that a round stays within {@link Rendezvous#MAX_GATHER_BYTES}) goes in chunks
 * over several rounds; a partial message grows only with the bytes that arrived. Every rank sees every round in the
 * same order, so that decisions taken on the rounds' contents (which call failed, when all ranks leave, when all
 * survivors reform) are the same on every rank. Idle pumps poll at most every {@link #MAX_IDLE_MILLIS} ms.
 *
 * <p>The rounds travel as the rendezvous server's allgathers of survivors, in its versioned, authenticated messages: the
 * layout below is part of the rendezvous protocol's version, which every process proved at its handshake, so a
 * process of another release is refused before its first round, naming both versions.
 *
 * <pre>
 * round head   int bytes, int flags (1: this rank has closed its communicator and has nothing left to send;
 *              2: this rank reforms the job with the replacements of dead ranks and has nothing left to send;
 *              4: this rank grows the job and has nothing left to send)
 * round bytes  chunks: byte type, long group, byte space, long seq, int from, int to, byte last, int length, bytes
 * </pre>
 */
final class Wire {
    /**
     * What a message belongs to: a communicator's {@code group} (its parent and its children share this wire), and
     * in it a call; {@code from} and {@code to} are -1 where not a pair's.
     */
    record Key(long group, byte space, long seq, int from, int to) {}

    /** Where messages go: called on the pump thread, in round order, senders in rank order. */
    interface Receiver {
        void deliver(int sender, byte type, Key key, byte[] body) throws ProtocolException;

        /** Rank {@code rank}'s process died; the others go on without it. {@code reason} names it and says how. */
        void gone(int rank, String reason);

        /** The link broke (rank 0 died, the rendezvous failed or was ended); {@code reason} names who and why. */
        void failed(String reason);
    }

    static final int MAX_IDLE_MILLIS = 5;
    /** The largest message: a rank's part of one call (its description and at most 2 GiB of data) fits. */
    static final int MAX_MESSAGE_BYTES = Integer.MAX_VALUE - 8;

    private static final int HEADER_BYTES = 1 + 8 + 1 + 8 + 4 + 4 + 1 + 4;
    private static final int LEAVING = 1;
    private static final int REFORMING = 2;
    private static final int GROWING = 4;

    private final Rendezvous rendezvous;
    private final Receiver receiver;
    private final int roundBytes;
    private final Thread pump;
    /** Messages not yet fully sent, oldest first; guarded by this. */
    private final ArrayDeque<Outgoing> outbox = new ArrayDeque<>();
    /** Messages not yet fully received, by sender, type and key; the pump's alone. */
    private final Map<Incoming, ByteArrayOutputStream> partial = new HashMap<>();
    /** The ranks whose process died; the pump's alone. */
    private final BitSet gone = new BitSet();

    private boolean leaving;
    private boolean reforming;
    /** How many processes this rank asks the job to grow by, and within how long; 0 while it does not grow. */
    private int growBy;

    private Duration growTimeout;
    /** Why the growth this rank asked for failed, the job going on at its size; null until then. */
    private BootstrapException growthFailure;
    /** The flags the last round told the others. */
    private int announced;
    /** Whether the pumps stopped because every survivor reforms: the rendezvous passes to the reformed job. */
    private boolean handedOver;

    private String stopReason;
    /** Why the pump stopped on a failure; null while it runs or once it stopped otherwise. */
    private String broken;

    private boolean stopped;

    Wire(Rendezvous rendezvous, Receiver receiver) {
        this.rendezvous = rendezvous;
        this.receiver = receiver;
        this.roundBytes = Math.min(Rendezvous.MAX_VALUE_BYTES, Rendezvous.MAX_GATHER_BYTES / rendezvous.size());
        this.pump = new Thread(this::pump, "collectives-sim-wire-rank-" + rendezvous.rank());
        pump.setDaemon(true);
    }

    void start() {
        pump.start();
    }

    /** Queues a message for every rank (this one included): it goes out in the next rounds. */
    synchronized void send(byte type, Key key, byte[] body) {
        outbox.addLast(new Outgoing(type, key, body));
        notifyAll();
    }

    /**
     * This rank is done: once every rank is (and nothing is left to send), the pumps stop after the same round and
     * the rendezvous is closed. Waits up to {@code timeout} for that, then ends the job on every rank, saying so.
     */
    void leave(Duration timeout, String reasonIfLate) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            leaving = true;
            notifyAll();
            Monitors.awaitUntil(this, () -> stopped, deadline);
            if (!stopped) {
                stopReason = reasonIfLate;
                notifyAll();
            }
        }
        try {
            pump.join(timeout.toMillis() + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pump() {
        try {
            for (int idleRounds = 0; ; ) {
                byte[] batch;
                int flags;
                String stop;
                synchronized (this) {
                    stop = stopReason;
                    batch = takeBatch();
                    flags = flags();
                    announced = flags;
                }
                if (stop != null) {
                    rendezvous.abort(stop);
                    return;
                }
                byte[][] heads = survivors(ByteBuffer.allocate(8)
                        .putInt(batch.length)
                        .putInt(flags)
                        .array());
                int most = 0;
                boolean allLeaving = true;
                boolean allReforming = true;
                boolean allGrowing = true;
                int[] lengths = new int[heads.length];
                for (int q = 0; q < heads.length; q++) {
                    if (heads[q] == null) {
                        continue;
                    }
                    ByteBuffer head = ByteBuffer.wrap(heads[q]);
                    lengths[q] = head.getInt();
                    if (lengths[q] < 0 || lengths[q] > roundBytes) {
                        throw new ProtocolException("rank " + q + " announced " + lengths[q] + " bytes for a round of"
                                + " at most " + roundBytes);
                    }
                    int theirs = head.getInt();
                    allLeaving &= (theirs & LEAVING) != 0;
                    allReforming &= (theirs & REFORMING) != 0;
                    allGrowing &= (theirs & GROWING) != 0;
                    most = Math.max(most, lengths[q]);
                }
                if (most == 0 && allLeaving) {
                    rendezvous.close();
                    return;
                }
                if (most == 0 && allReforming) {
                    handOver("the job was reformed with the replacements of the ranks that died; this communicator is"
                            + " left over from before");
                    return;
                }
                if (most == 0 && allGrowing && grewNow()) {
                    return;
                }
                if (most > 0) {
                    byte[][] bodies = survivors(Arrays.copyOf(batch, most));
                    for (int q = 0; q < bodies.length; q++) {
                        if (bodies[q] != null) {
                            receive(q, ByteBuffer.wrap(bodies[q], 0, lengths[q]));
                        }
                    }
                    idleRounds = 0;
                } else {
                    idle(Math.min(MAX_IDLE_MILLIS, idleRounds++));
                }
            }
        } catch (CollectivesException e) {
            broke(e.getMessage());
        } catch (IOException e) {
            String reason = "rank " + rendezvous.rank() + " received a malformed sim message: " + e.getMessage();
            rendezvous.abort(reason);
            broke(reason);
        } finally {
            synchronized (this) {
                stopped = true;
                notifyAll();
            }
        }
    }

    /** This rank's flags for the next round: what it does once it has nothing left to send. */
    private int flags() {
        if (!outbox.isEmpty()) {
            return 0;
        }
        return (leaving ? LEAVING : 0) | (reforming ? REFORMING : 0) | (growBy > 0 ? GROWING : 0);
    }

    /** Adds where a communicator on this wire stands to its rank's heartbeats ({@link Rendezvous#reportProgress}). */
    Progress.Report reportProgress(Supplier<Progress.Place> place) {
        return rendezvous.reportProgress(place);
    }

    /**
     * Stops this rank's pump in the round where every survivor asks it (after the rounds that carry what they have to
     * send), and returns the rendezvous, which passes to the job the survivors reform with the replacements of the
     * dead ranks. Waits up to {@code timeout}; past it, ends the job on every rank, naming the survivors' timeout.
     */
    Rendezvous stopForReform(Duration timeout, int rank) {
        synchronized (this) {
            reforming = true;
            notifyAll();
            return awaitHandOver(
                    timeout,
                    rank,
                    "waited to reform the job, but not every surviving rank did",
                    "reform: the sim's link to the other ranks ended before the survivors met: ");
        }
    }

    /**
     * Waits up to {@code wait} for the pumps to hand the rendezvous over, and returns it; where they stop otherwise,
     * throws {@code ended} and why; past the wait, ends the job on every rank saying that rank {@code rank} {@code late}
     * ("waited to grow the job, but not every rank did"). Where a growth failed meanwhile, throws why. Called holding
     * this wire's monitor.
     */
    private Rendezvous awaitHandOver(Duration wait, int rank, String late, String ended) {
        Monitors.awaitUntil(this, () -> stopped || growthFailure != null, System.nanoTime() + wait.toNanos());
        if (growthFailure != null) {
            BootstrapException failed = growthFailure; // heard once
            growthFailure = null;
            throw failed;
        }
        if (handedOver) {
            return rendezvous;
        }
        if (!stopped) {
            stopReason = "rank " + rank + " " + late + " within " + wait.toMillis() + " ms";
            notifyAll();
        }
        throw CollectivesException.usage(rank, ended + (stopReason != null ? stopReason : broken));
    }

    private void broke(String reason) {
        synchronized (this) {
            broken = reason;
        }
        receiver.failed(reason);
    }

    /** The rendezvous passes to the job formed anew; the communicators on this wire fail from now on, saying why. */
    private void handOver(String why) {
        synchronized (this) {
            handedOver = true;
        }
        receiver.failed(why);
    }

    /**
     * Every rank asked to grow the job in this round: this pump takes part in the growth. Returns whether it grew
     * (the rendezvous passes to the grown job); where it failed on every rank, and the job goes on, this rank hears
     * why and the pumps go on at the job's size.
     */
    private boolean grewNow() {
        int added;
        Duration timeout;
        synchronized (this) {
            added = growBy;
            timeout = growTimeout;
        }
        try {
            rendezvous.grow(added, timeout);
        } catch (BootstrapException e) {
            if (!e.jobGoesOn()) {
                throw e;
            }
            synchronized (this) {
                growBy = 0;
                growthFailure = e;
                notifyAll();
            }
            return false;
        }
        handOver("the job grew by " + added + (added == 1 ? " process" : " processes") + "; this communicator is left"
                + " over from before");
        return true;
    }

    /**
     * Grows the job by {@code added} processes that join it, in the round where every rank asks it (after the rounds
     * that carry what they have to send): the pumps take part in the growth ({@link Rendezvous#grow}, which waits up
     * to {@code timeout} for the processes that join), then stop and return the rendezvous, which passes to the grown
     * job. Where the growth fails on every rank, the job going on, it throws why and the pumps go on at the job's
     * size. Waits up to twice {@code timeout} in all; past it, ends the job on every rank, naming the timeout.
     */
    Rendezvous grow(int added, Duration timeout, int rank) {
        synchronized (this) {
            growBy = added;
            growTimeout = timeout;
            notifyAll();
            return awaitHandOver(
                    timeout.multipliedBy(2),
                    rank,
                    "waited to grow the job, but not every rank did",
                    "grow: the sim's link to the other ranks ended before they grew the job: ");
        }
    }

    /**
     * Every surviving rank's value, null for those whose process died: the receiver hears of each death once, in
     * the same round on every rank, and the dead rank's unfinished messages are dropped.
     */
    private byte[][] survivors(byte[] value) throws ProtocolException {
        Rendezvous.Survivors survivors = rendezvous.allGatherOfSurvivors(value);
        for (int q = 0; q < survivors.values().length; q++) {
            String reason = survivors.goneReasons()[q];
            if (reason != null && !gone.get(q)) {
                gone.set(q);
                int dead = q;
                partial.keySet().removeIf(message -> message.sender() == dead);
                receiver.gone(q, reason);
            }
        }
        return survivors.values();
    }

    /** Waits up to {@code millis} for something to send (or this rank leaving) before the next round. */
    private synchronized void idle(int millis) {
        if (millis > 0 && outbox.isEmpty() && flags() == announced && stopReason == null) {
            try {
                wait(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopReason = "rank " + rendezvous.rank() + "'s sim link was interrupted";
            }
        }
    }

    /** As many chunks of the queued messages as fit in one round's share. */
    private byte[] takeBatch() {
        ByteBuffer batch = ByteBuffer.allocate(roundBytes);
        while (!outbox.isEmpty() && batch.remaining() > HEADER_BYTES) {
            Outgoing message = outbox.peekFirst();
            int length = Math.min(batch.remaining() - HEADER_BYTES, message.body.length - message.sent);
            boolean last = message.sent + length == message.body.length;
            Key key = message.key;
            batch.put(message.type)
                    .putLong(key.group())
                    .put(key.space())
                    .putLong(key.seq())
                    .putInt(key.from())
                    .putInt(key.to())
                    .put((byte) (last ? 1 : 0))
                    .putInt(length)
                    .put(message.body, message.sent, length);
            message.sent += length;
            if (last) {
                outbox.removeFirst();
            }
        }
        return Arrays.copyOf(batch.array(), batch.position());
    }

    /** Rank {@code sender}'s chunks of one round: completed messages are delivered. */
    private void receive(int sender, ByteBuffer chunks) throws ProtocolException {
        while (chunks.hasRemaining()) {
            if (chunks.remaining() < HEADER_BYTES) {
                throw new ProtocolException("rank " + sender + " sent a truncated chunk header");
            }
            byte type = chunks.get();
            Key key = new Key(chunks.getLong(), chunks.get(), chunks.getLong(), chunks.getInt(), chunks.getInt());
            boolean last = chunks.get() != 0;
            int length = chunks.getInt();
            if (length < 0 || length > chunks.remaining()) {
                throw new ProtocolException("rank " + sender + " sent a chunk of " + length + " bytes in a round of "
                        + chunks.remaining() + " more");
            }
            Incoming id = new Incoming(sender, type, key);
            ByteArrayOutputStream sofar = partial.get(id);
            if (last && sofar == null) {
                byte[] body = new byte[length];
                chunks.get(body);
                receiver.deliver(sender, type, key, body);
                continue;
            }
            if (sofar == null) {
                sofar = new ByteArrayOutputStream();
                partial.put(id, sofar);
            }
            if (sofar.size() > MAX_MESSAGE_BYTES - length) {
                throw new ProtocolException(
                        "rank " + sender + " sent a message of more than " + MAX_MESSAGE_BYTES + " bytes");
            }
            sofar.write(chunks.array(), chunks.arrayOffset() + chunks.position(), length);
            chunks.position(chunks.position() + length);
            if (last) {
                partial.remove(id);
                receiver.deliver(sender, type, key, sofar.toByteArray());
            }
        }
    }

    private static final class Outgoing {
        final byte type;
        final Key key;
        final byte[] body;
        int sent;

        Outgoing(byte type, Key key, byte[] body) {
            this.type = type;
            this.key = key;
            this.body = body;
        }
    }

    private record Incoming(int sender, byte type, Key key) {}
}
