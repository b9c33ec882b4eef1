package dev.collectives.runtime.bootstrap;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One authenticated TCP connection between rank 0 and another rank. Everything on the wire is primitives and
 * length-prefixed byte arrays read with {@link DataInputStream}; lengths are checked against a bound before
 * anything is allocated. Every message after the handshake carries an HMAC under a key derived from the job
 * token and both sides' nonces, over its direction, type, operation number and bytes.
 *
 * <pre>
 * handshake  rank 0 -> peer: int MAGIC, int VERSION, byte[32] server nonce, byte SERVED_BY_RANK_0 | STANDALONE,
 *                            int heartbeat timeout in ms (0: no heartbeats)
 *            peer -> rank 0: int MAGIC, int VERSION, int rank, int size, byte[32] client nonce,
 *                            byte[32] HMAC(token; "join" | "replace" | "fate", server nonce, client nonce, rank, size)
 *            rank 0 -> peer: byte ACCEPTED, byte[32] HMAC(token; "accept", server nonce, client nonce, rank, size)
 *                         or byte REJECTED, int length, UTF-8 reason
 *                         or, to a "fate" claim (a rank whose connection ended asks whether it was excluded),
 *                            byte EXCLUDED, int length, UTF-8 reason, or REJECTED and why not
 * message    byte type (DATA | ABORT | LEAVE | STALL | GONE | REJOIN | WATCH | REUNION | HEARTBEAT | FENCED
 *            | REFUSED),
 *            int operation, int length, bytes,
 *            byte[32] HMAC(session key; ...)
 *            (an ABORT from rank 0 ends the job; one from another rank asks rank 0 to end it; LEAVE: a rank
 *            closes its rendezvous after its last operation, so that its connection ending is no failure, and
 *            rank 0 closing a watched job says so to every rank; STALL: in a watched job, a rank timed out waiting
 *            for its work in the library, the bytes say where; GONE: in a watched job, rank 0 tells the others
 *            that a rank's process died, the bytes say which and how, and the survivors may meet again; REJOIN: rank 0
 *            tells a replacement the number of its first operation, where the survivors meet it; HEARTBEAT: a sign
 *            of life, both ways, where the greeting gave a heartbeat timeout, the bytes the sender's rank (-1 from the
 *            server); FENCED: the server excluded the member, which was silent past the heartbeat timeout or sent
 *            what a member may not, the bytes say why, and its connection closes after it; REFUSED: the server
 *            turned away a claim to join, which every member logs at once, the bytes say whose and why)
 * </pre>
 *
 * <p>Where the greeting gives a heartbeat timeout, any message counts as a sign of life. A member reads its server's
 * messages within that timeout ({@link #expectBeats}): the server's silence past it fails the read
 * ({@link Silence}).
 *
 * <p>A standalone server ({@link RendezvousServer}) takes every rank's message for each operation, rank 0's too, and
 * answers each rank with all of them ({@link #gathered}): a rank takes rank 0's value for a broadcast. A rank says
 * WATCH when its job is watched from then on (GONE reaches only those ranks), and REUNION for its part of a
 * reunion.
 */
final class Channel implements AutoCloseable {
    static final int MAGIC = 0x436f4c4c;
    static final int VERSION = 5;
    static final byte ACCEPTED = 0;
    static final byte REJECTED = 1;
    static final byte DATA = 1;
    /** The sender ends the job (rank 0), or asks rank 0 to (the others); the bytes are the reason, as UTF-8 text. */
    static final byte ABORT = 2;
    /** The sender is done with the rendezvous (rank 0 only of a watched job); no bytes. */
    static final byte LEAVE = 3;
    /** A rank timed out waiting for its work in the library (a watched job); the bytes say where, as UTF-8 text. */
    static final byte STALL = 4;
    /** A rank's process died in a watched job (rank 0 only); the bytes say which and how, as UTF-8 text. */
    static final byte GONE = 5;
    /** Rank 0 takes a replacement into the job at this message's operation, its first (rank 0 only); no bytes. */
    static final byte REJOIN = 6;
    /** To a standalone server: the sender's job is watched from now on, until its next operation; no bytes. */
    static final byte WATCH = 7;
    /** To a standalone server: the sender's part of a reunion with the replacements of the dead ranks; no bytes. */
    static final byte REUNION = 8;
    /** A sign of life, both ways (only where the greeting gave a heartbeat timeout); the bytes: the sender's rank. */
    static final byte HEARTBEAT = 9;
    /** From a standalone server: the member is excluded from the job; the bytes say why; its connection closes. */
    static final byte FENCED = 10;
    /** From a standalone server: it turned away a claim to join (a wrong token, another version); the bytes say which. */
    static final byte REFUSED = 11;
    /** The answer to a "fate" claim: the rank was excluded from the job; the reason follows. */
    static final byte EXCLUDED = 2;

    /** The greeting's last byte: rank 0 serves the rendezvous and takes part in it. */
    static final byte SERVED_BY_RANK_0 = 0;
    /** The greeting's last byte: a server of its own serves the rendezvous, and every rank is its member. */
    static final byte STANDALONE = 1;

    /** The direction of a message, part of what its HMAC covers: from rank 0, or to it. */
    static final byte FROM_ROOT = 0;

    static final byte TO_ROOT = 1;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private String peer;
    private JobToken sessionKey;
    private final ReentrantLock sendTurn = new ReentrantLock();
    private byte sending;
    private byte receiving;
    /** How long a read may wait for the other end's next message (0: as long as its deadline says). */
    private volatile int silenceMillis;

    /** A message: its type, the operation it belongs to, and its bytes. */
    record Frame(byte type, int operation, byte[] bytes) {
        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    Channel(Socket socket, String peer) throws IOException {
        socket.setTcpNoDelay(true); // a message is flushed whole; waiting to coalesce it would only add latency
        this.socket = socket;
        this.peer = peer;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** "rank 2 at /10.0.0.7:53312" */
    String peer() {
        return peer;
    }

    DataInputStream in() {
        return in;
    }

    DataOutputStream out() {
        return out;
    }

    /** After a successful handshake: messages are authenticated with the derived key from now on. */
    void authenticated(JobToken sessionKey, boolean root, String peer) {
        this.sessionKey = sessionKey;
        this.peer = peer;
        this.sending = root ? FROM_ROOT : TO_ROOT;
        this.receiving = root ? TO_ROOT : FROM_ROOT;
    }

    static JobToken sessionKey(JobToken token, byte[] serverNonce, byte[] clientNonce, int rank) {
        return token.derive("session", serverNonce, clientNonce, JobToken.ints(rank));
    }

    /** Runs {@code step} with reads bounded by {@code deadline}; past it, the socket is closed. */
    <T> T within(Deadline deadline, IoStep<T> step) throws IOException {
        socket.setSoTimeout(deadline.timeoutMillis());
        return closedPast(deadline, step);
    }

    /**
     * From now on the other end beats at least every so often: a read that hears nothing, not even a heartbeat, for
     * {@code timeout} fails with {@link Silence}.
     */
    void expectBeats(Duration timeout) {
        silenceMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }

    /** The other end sent nothing, not even a heartbeat, for the heartbeat timeout. */
    static final class Silence extends SocketTimeoutException {
        private static final long serialVersionUID = 1;

        Silence(int millis) {
            super("no heartbeat for " + Settings.formatDuration(Duration.ofMillis(millis)));
        }
    }

    /** The next message other than a heartbeat, read by {@code deadline} (none: no limit) and within the silence. */
    private Frame nextNews(Deadline deadline, int maxData) throws IOException {
        while (true) {
            int silence = silenceMillis;
            int limit = deadline == null
                    ? silence
                    : silence == 0 ? deadline.timeoutMillis() : Math.min(silence, deadline.timeoutMillis());
            socket.setSoTimeout(limit);
            Frame frame;
            try {
                frame = deadline == null
                        ? readFrame(in, sessionKey, receiving, maxData)
                        : closedPast(deadline, () -> readFrame(in, sessionKey, receiving, maxData));
            } catch (SocketTimeoutException e) {
                if (silence > 0 && limit == silence && (deadline == null || !deadline.expired())) {
                    Silence silent = new Silence(silence);
                    silent.initCause(e);
                    throw silent;
                }
                throw e;
            }
            if (frame.type() != HEARTBEAT) {
                return frame;
            }
        }
    }

    /**
     * Runs {@code step}, closing the socket past {@code deadline}. It leaves the read timeout alone: a send runs
     * this way while another thread may read with no deadline, and that read must not time out at the send's.
     */
    private <T> T closedPast(Deadline deadline, IoStep<T> step) throws IOException {
        try (Watchdog.Guard guard = Watchdog.closeAt(socket, deadline)) {
            try {
                return step.run();
            } catch (IOException e) {
                if (guard.fired() && !(e instanceof SocketTimeoutException)) {
                    SocketTimeoutException timeout = new SocketTimeoutException("deadline passed");
                    timeout.initCause(e);
                    throw timeout;
                }
                throw e;
            }
        }
    }

    /**
     * Sends a message. Rank 0 may send from two threads at once (an operation's results, and an abort when a
     * member fails), so sends take turns; one that cannot get its turn before {@code deadline} times out.
     */
    void send(byte type, int operation, byte[] bytes, Deadline deadline) throws IOException {
        try {
            if (!sendTurn.tryLock(deadline.remainingMillis(), TimeUnit.MILLISECONDS)) {
                throw new SocketTimeoutException("another message to " + peer + " was still being sent");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while sending to " + peer);
        }
        try {
            write(type, operation, bytes, deadline);
        } finally {
            sendTurn.unlock();
        }
    }

    /** Writes a message; the caller holds the turn to send. */
    private void write(byte type, int operation, byte[] bytes, Deadline deadline) throws IOException {
        byte[] mac = sessionKey.mac("message", new byte[] {sending, type}, JobToken.ints(operation), bytes);
        closedPast(deadline, () -> {
            out.writeByte(type);
            out.writeInt(operation);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.write(mac);
            out.flush();
            return null;
        });
    }

    /**
     * The next message: DATA for {@code operation} of at most {@code maxData} bytes, or ABORT, which the other end
     * may send at any time (rank 0 also while others are still joining).
     */
    Frame receive(int operation, int maxData, Deadline deadline) throws IOException {
        Frame frame = nextNews(deadline, maxData);
        if (frame.type() == DATA && frame.operation() != operation) {
            throw new ProtocolException("a message for operation #" + frame.operation() + " during operation #"
                    + operation + " (the ranks called different operations)");
        }
        return frame;
    }

    /**
     * The next message, whatever its operation, heartbeats too, without a deadline: the server listens to each member
     * this way.
     */
    Frame receiveAny() throws IOException {
        socket.setSoTimeout(0);
        return readFrame(in, sessionKey, receiving, Rendezvous.MAX_VALUE_BYTES);
    }

    /**
     * The next message other than a heartbeat, whatever its operation, without a deadline but within the heartbeat
     * timeout where the other end beats: a member watches its job this way.
     */
    Frame receiveNews() throws IOException {
        return nextNews(null, Rendezvous.MAX_VALUE_BYTES);
    }

    /**
     * Sends a heartbeat with {@code bytes}, unless another message is being sent (that one is a sign of life too);
     * one that cannot be sent by {@code deadline} closes the connection, which its reader then hears. Returns
     * whether it was sent.
     */
    boolean beat(byte[] bytes, Deadline deadline) {
        if (!sendTurn.tryLock()) {
            return false;
        }
        try {
            write(HEARTBEAT, 0, bytes, deadline);
            return true;
        } catch (IOException e) {
            close();
            return false;
        } finally {
            sendTurn.unlock();
        }
    }

    /**
     * Decodes one message sent in {@code direction} under {@code key}. Its length is checked against the bound of
     * its type (DATA: {@code maxData}, ABORT, STALL, GONE, FENCED, REFUSED: {@link Rendezvous#MAX_REASON_BYTES}, HEARTBEAT:
     * 4, the others: none) before anything is allocated,
     * so no sequence of bytes makes it allocate more than that, and it reads no more than the message's own bytes.
     */
    static Frame readFrame(DataInputStream in, JobToken key, byte direction, int maxData) throws IOException {
        byte type = in.readByte();
        int operation = in.readInt();
        int length = in.readInt();
        int max = type == DATA
                ? maxData
                : type == ABORT || type == STALL || type == GONE || type == FENCED || type == REFUSED
                        ? Rendezvous.MAX_REASON_BYTES
                        : type == HEARTBEAT
                                ? Integer.BYTES
                                : type == LEAVE || type == REJOIN || type == WATCH || type == REUNION ? 0 : -1;
        if (max < 0) {
            throw new ProtocolException("a message of unknown type " + type);
        }
        if (length < 0 || length > max) {
            throw new ProtocolException("a message of " + length + " bytes, above the limit of " + max);
        }
        if (type == HEARTBEAT && length != max) {
            throw new ProtocolException("a heartbeat of " + length + " bytes, not " + max);
        }
        byte[] bytes = readBytes(in, length);
        byte[] mac = readBytes(in, JobToken.MAC_BYTES);
        if (!key.verify(mac, "message", new byte[] {direction, type}, JobToken.ints(operation), bytes)) {
            throw new ProtocolException("a message that failed authentication");
        }
        return new Frame(type, operation, bytes);
    }

    /** A length-prefixed UTF-8 text of at most {@link Rendezvous#MAX_REASON_BYTES}. */
    static void writeText(DataOutputStream out, String text) throws IOException {
        byte[] bytes = truncate(text);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readText(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > Rendezvous.MAX_REASON_BYTES) {
            throw new ProtocolException(
                    "a text of " + length + " bytes, above the limit of " + Rendezvous.MAX_REASON_BYTES);
        }
        return new String(readBytes(in, length), StandardCharsets.UTF_8);
    }

    static byte[] truncate(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= Rendezvous.MAX_REASON_BYTES) {
            return bytes;
        }
        return new String(bytes, 0, Rendezvous.MAX_REASON_BYTES - 3, StandardCharsets.UTF_8)
                .replace("\uFFFD", "")
                .concat("...")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** How rank 0 tells the survivors an allgather's values: per rank, 0 and its value, or 1 and why it is gone. */
    static byte[] survivors(Rendezvous.Survivors survivors) {
        return encode(survivors, false);
    }

    /** The most bytes of {@link #survivors} for {@code size} ranks' values of {@code valueBytes}. */
    static int survivorsBytes(int size, int valueBytes) {
        return Math.toIntExact((long) size * (1 + Math.max(valueBytes, 4 + Rendezvous.MAX_REASON_BYTES)));
    }

    static Rendezvous.Survivors readSurvivors(byte[] bytes, int size, int valueBytes) throws IOException {
        return decode(bytes, size, valueBytes);
    }

    /**
     * How a standalone server answers an operation: per rank, 0, the length and the value it sent, or 1 and why it
     * is gone. The values may differ in length (a broadcast's ranks other than 0 send none).
     */
    static byte[] gathered(Rendezvous.Survivors gathered) {
        return encode(gathered, true);
    }

    /** The most bytes of {@link #gathered} for {@code size} ranks. */
    static int gatheredBytes(int size) {
        return Math.toIntExact(Rendezvous.MAX_GATHER_BYTES + (long) size * (5 + 4 + Rendezvous.MAX_REASON_BYTES));
    }

    static Rendezvous.Survivors readGathered(byte[] bytes, int size) throws IOException {
        return decode(bytes, size, -1);
    }

    /** Per rank: 0 and its value (after its length, {@code withLengths}), or 1 and why it is gone. */
    private static byte[] encode(Rendezvous.Survivors all, boolean withLengths) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            for (int r = 0; r < all.values().length; r++) {
                String reason = all.goneReasons()[r];
                out.writeBoolean(reason != null);
                if (reason != null) {
                    writeText(out, reason);
                    continue;
                }
                if (withLengths) {
                    out.writeInt(all.values()[r].length);
                }
                out.write(all.values()[r]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** What {@link #encode} wrote: values of {@code valueBytes} each, or each after its length where that is -1. */
    private static Rendezvous.Survivors decode(byte[] bytes, int size, int valueBytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        byte[][] values = new byte[size][];
        String[] gone = new String[size];
        for (int r = 0; r < size; r++) {
            if (in.readBoolean()) {
                gone[r] = readText(in);
                continue;
            }
            int length = valueBytes >= 0 ? valueBytes : in.readInt();
            if (length < 0 || length > Rendezvous.MAX_VALUE_BYTES) {
                throw new ProtocolException("a value of " + length + " bytes from rank " + r);
            }
            values[r] = readBytes(in, length);
        }
        if (in.available() > 0) {
            throw new ProtocolException(in.available() + " bytes past the ranks' values");
        }
        return new Rendezvous.Survivors(values, gone);
    }

    /**
     * Exactly {@code count} bytes (already checked against a bound). They are read in chunks as they arrive, so a
     * message that claims many bytes and sends few costs no more memory than what it sent.
     */
    static byte[] readBytes(DataInputStream in, int count) throws IOException {
        byte[] bytes = in.readNBytes(count);
        if (bytes.length != count) {
            throw new EOFException("the connection ended " + bytes.length + " bytes into " + count);
        }
        return bytes;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is best effort; the peer sees the connection end either way
        }
    }

    /** A step of socket I/O. */
    @FunctionalInterface
    interface IoStep<T> {
        T run() throws IOException;
    }
}
