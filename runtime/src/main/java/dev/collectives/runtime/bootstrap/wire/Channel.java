package dev.collectives.runtime.bootstrap.wire;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.Progress;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.Watchdog;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One authenticated TCP connection between a member (a rank) and the job's server ({@code JobServer}, hosted by
 * rank 0's process or by a process of its own). Everything on the wire is primitives and length-prefixed byte arrays
 * read with {@link DataInputStream}; lengths are checked against a bound before anything is allocated. Every message
 * after the handshake carries an HMAC under a key derived from the job token and both sides' nonces, over its
 * direction, type, operation number and bytes.
 *
 * <pre>
 * handshake  server -> member: int MAGIC, int VERSION, byte[32] server nonce, byte HOSTED_BY_RANK_0 | STANDALONE,
 *                              int heartbeat timeout in ms
 *            member -> server: int MAGIC, int VERSION, byte claim, int rank, int size, byte[32] client nonce,
 *                              byte[32] HMAC(token; claim, server nonce, client nonce, rank, size)
 *                              (claim, its byte as {@link FrameRules.Claim} numbers it, and its word as the HMAC's
 *                              label, so that the HMAC covers it: "join" for a rank of the job, "replace" for a process that takes the place
 *                              of a rank that died, "grow" for a process that joins a running job at its next growth,
 *                              with rank and size -1, "fate" for a rank whose connection ended and asks whether it
 *                              was excluded, "dump" for a client, not a rank, that asks for the ranks' flight
 *                              records, with rank and size -1)
 *            server -> member: to "join", "replace" and "dump":
 *                              byte ACCEPTED, byte[32] HMAC(token; "accept", server nonce, client nonce, rank, size)
 *                           or byte REJECTED, int length, UTF-8 reason
 *                              to "grow":
 *                              byte ACCEPTED, int number (the rank it takes in the job once it grows: the lowest
 *                              after the job's highest not held by another process waiting to join),
 *                              byte[32] HMAC(token; "accept", server nonce, client nonce, -1, -1, number)
 *                           or byte REJECTED, int length, UTF-8 reason
 *                              to "fate" (the connection closes after it; the job goes on as it was):
 *                              byte EXCLUDED, int length, UTF-8 why it was excluded
 *                           or byte REJECTED, int length, UTF-8 why not
 *            (a member of another VERSION is rejected: the side that sees it names both versions)
 * message    byte type, int operation, int length, bytes, byte[32] HMAC(session key; direction, type, operation, bytes)
 *            (the type's byte, its bound on length and where it is legal: {@link FrameType}; a message that reports
 *            a failure carries a {@link Cause}: its kind, the ranks at fault, and the words for people)
 *   member -> server: DATA       its value for an allgather
 *                     BROADCAST  its value for a broadcast (rank 0's is the one; the others send none)
 *                     SURVIVORS  its value for an allgather of survivors (the sim's processes send their data
 *                                this way, in rounds whose layout is part of this VERSION)
 *                     REUNION    its part of a reunion with the replacements of the dead ranks; the bytes are
 *                                how long the reunion waits for them, in milliseconds (a long)
 *                     GROW       its part of a growth of the job: how long it waits for the processes that join,
 *                                in milliseconds (a long), and how many the members ask for (an int; 0 from a
 *                                process that joins)
 *                     WATCH      its job is watched from now on, until its next operation; no bytes
 *                     UNWATCH    its job is watched no more, its ranks alive: it takes part in operations again
 *                                (a growth); no bytes
 *                     STALL      it timed out waiting for its work in the library; a cause that names it and
 *                                says where
 *                     ABORT      it ends the job; a cause that names it and says why
 *                     LEAVE      it closes its rendezvous: its connection ending is no failure; no bytes
 *                     HEARTBEAT  a sign of life; the bytes: its rank (an int), then where it stands in its
 *                                communicators ({@link Progress}; nothing where it reports none)
 *                     DUMPED     its answer to a DUMP, numbered as the DUMP: the files its process wrote
 *                                ({@link Dumps#written})
 *   client -> server: DUMP       (a client admitted with a "dump" claim) write every live rank's record now; the
 *                                bytes: the directory (UTF-8; none: each rank's own)
 *   server -> member: DATA       an operation's answer, every rank's value or why it is gone ({@link #gathered});
 *                                for a reunion, the ranks replaced (a bitmap); for a growth, the job's size after
 *                                it (an int; the size before where it failed), then why it failed (UTF-8), if it did
 *                     REJOIN     to a replacement, or to a process that joins: the number of its first operation,
 *                                where the members meet it
 *                     GONE       to a watcher: a rank's process died, or it was excluded; a cause that names it
 *                                and says how
 *                     UNWATCH    to a watcher that asked to stop (and heard of no death since it watched): its watch
 *                                ends here; no bytes
 *                     ABORT      the job ended; a cause that names the ranks at fault (none where the server
 *                                ended it) and says why
 *                     LEAVE      rank 0 closed the watched job (where its process hosts the server); no bytes
 *                     HEARTBEAT  a sign of life; the bytes: -1 (an int)
 *                     FENCED     the member is excluded from the job: it was silent past the heartbeat timeout or
 *                                sent what a member may not; a cause that names it and says why; its connection
 *                                closes after it
 *                     REFUSED    a claim to join was turned away (a wrong token, another version), which every
 *                                member logs at once; a cause that names the rank claimed, if any, and says why
 *                     DUMP       a client asked for the ranks' records: this rank writes its process's now, into the
 *                                directory the bytes name (UTF-8; none: its own), and answers with DUMPED; numbered
 *                                as the request
 *   server -> client: DUMPED     every rank's answer, or why there is none: gone, or no answer in time
 *                                ({@link Dumps#report}); the connection closes after it
 * </pre>
 *
 * <p>Which of these is legal in which phase of a connection ({@link FrameType}), and which answer to which claim
 * ({@link FrameRules}), both ends check in one place.
 *
 * <p>Both ends beat at a sixth of the heartbeat timeout the greeting gives (on either hosting of the server), and any message counts as a sign of life. The server declares a member silent past it dead and
 * excludes it; a member reads its server's messages within that timeout ({@link #expectBeats}): the server's silence
 * past it fails the read ({@link Silence}).
 */
public final class Channel implements AutoCloseable {
    public static final int MAGIC = 0x436f4c4c;
    public static final int VERSION = 9;
    public static final byte ACCEPTED = 0;
    public static final byte REJECTED = 1;
    /** The answer to a "fate" claim: the rank was excluded from the job; the reason follows. */
    public static final byte EXCLUDED = 2;
    /** The greeting's last byte: rank 0's process hosts the server (for messages: "rank 0 at ..."). */
    public static final byte HOSTED_BY_RANK_0 = 0;
    /** The greeting's last byte: a process of its own serves the rendezvous. */
    public static final byte STANDALONE = 1;

    /** The direction of a message, part of what its HMAC covers: from the server, or to it. */
    static final byte FROM_ROOT = 0;

    public static final byte TO_ROOT = 1;

    private final Socket socket;
    private final ReadAhead buffered;
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
    /**
     * A message: its type, the operation it belongs to, its bytes, and the failure they are where its type
     * {@link FrameType#reportsFailure reports one} (else null).
     */
    public record Frame(FrameType type, int operation, byte[] bytes, Cause cause) {}

    public Channel(Socket socket, String peer) throws IOException {
        socket.setTcpNoDelay(true); // a message is flushed whole; waiting to coalesce it would only add latency
        this.socket = socket;
        this.peer = peer;
        this.buffered = new ReadAhead(socket.getInputStream());
        this.in = new DataInputStream(buffered);
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** "rank 2 at /10.0.0.7:53312" */
    String peer() {
        return peer;
    }

    public DataInputStream in() {
        return in;
    }

    public DataOutputStream out() {
        return out;
    }

    /** A buffered stream that can hand over what it read ahead. */
    private static final class ReadAhead extends BufferedInputStream {
        ReadAhead(InputStream in) {
            super(in);
        }

        synchronized byte[] take() {
            byte[] ahead = Arrays.copyOfRange(buf, pos, count);
            pos = count;
            return ahead;
        }
    }

    /**
     * The bytes read past what was asked for so far, taken: a member's handshake reads its connection this way, then
     * hands it with them to its loop ({@code MemberConnection}).
     */
    public byte[] takeUnread() {
        return buffered.take();
    }

    /** After a successful handshake: messages are authenticated with the derived key from now on. */
    public void authenticated(JobToken sessionKey, boolean root, String peer) {
        this.sessionKey = sessionKey;
        this.peer = peer;
        this.sending = root ? FROM_ROOT : TO_ROOT;
        this.receiving = root ? TO_ROOT : FROM_ROOT;
    }

    public static JobToken sessionKey(JobToken token, byte[] serverNonce, byte[] clientNonce, int rank) {
        return token.derive("session", serverNonce, clientNonce, JobToken.ints(rank));
    }

    /** Runs {@code step} with reads bounded by {@code deadline}; past it, the socket is closed. */
    public <T> T within(Deadline deadline, IoStep<T> step) throws IOException {
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
    public static final class Silence extends SocketTimeoutException {
        private static final long serialVersionUID = 1;

        public Silence(int millis) {
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
            if (frame.type() != FrameType.HEARTBEAT) {
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
     * Sends a message. The server may send from two threads at once (an operation's answer, and an abort when a
     * member fails), so sends take turns; one that cannot get its turn before {@code deadline} times out.
     */
    public void send(FrameType type, int operation, byte[] bytes, Deadline deadline) throws IOException {
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
    private void write(FrameType type, int operation, byte[] bytes, Deadline deadline) throws IOException {
        byte[] mac = frameMac(sessionKey, sending, type, operation, bytes);
        closedPast(deadline, () -> {
            out.writeByte(type.wire);
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
     * may send at any time (also while others are still joining).
     */
    public Frame receive(int operation, int maxData, Deadline deadline) throws IOException {
        Frame frame = nextNews(deadline, maxData);
        if (frame.type() == FrameType.DATA && frame.operation() != operation) {
            throw new ProtocolException("a message for operation #" + frame.operation() + " during operation #"
                    + operation + " (the ranks called different operations)");
        }
        return frame;
    }

    /**
     * The next message, whatever its operation, heartbeats too, without a deadline: the server listens to each member
     * this way.
     */
    public Frame receiveAny() throws IOException {
        socket.setSoTimeout(0);
        return readFrame(in, sessionKey, receiving, Rendezvous.MAX_VALUE_BYTES);
    }

    /**
     * The next message other than a heartbeat, whatever its operation, without a deadline but within the heartbeat
     * timeout where the other end beats: a member watches its job this way.
     */
    public Frame receiveNews() throws IOException {
        return nextNews(null, Rendezvous.MAX_VALUE_BYTES);
    }

    /**
     * Decodes one message sent in {@code direction} under {@code key}. Its length is checked against the bound of
     * its type ({@link FrameType#maxBytes}: an operation's value, {@code maxData}) before anything is allocated, so
     * no sequence of bytes makes it allocate more than that, and it reads no more than the message's own bytes.
     */
    public static Frame readFrame(DataInputStream in, JobToken key, byte direction, int maxData) throws IOException {
        byte wire = in.readByte();
        int operation = in.readInt();
        int length = in.readInt();
        FrameType type = checkedType(wire, length, maxData);
        byte[] bytes = readBytes(in, length);
        byte[] mac = readBytes(in, JobToken.MAC_BYTES);
        return authenticated(key, mac, direction, type, operation, bytes);
    }

    /**
     * The type of a message whose header says {@code wire} and {@code length}: fails where the type is unknown or the
     * length breaks its bound ({@link FrameType#maxBytes}: an operation's value, {@code maxData}).
     */
    static FrameType checkedType(byte wire, int length, int maxData) throws ProtocolException {
        FrameType type = FrameType.ofWire(wire);
        if (type == null) {
            throw new ProtocolException("a message of unknown type " + wire);
        }
        int max = type.maxBytes(maxData);
        if (length < 0 || length > max) {
            throw new ProtocolException("a message of " + length + " bytes, above the limit of " + max);
        }
        if (type.fixedLength() && length != max) {
            throw new ProtocolException("a " + type + " message of " + length + " bytes, not " + max);
        }
        if (length < type.minBytes()) {
            throw new ProtocolException(
                    "a " + type + " message of " + length + " bytes, not at least " + type.minBytes());
        }
        return type;
    }

    /** The message whose {@code mac} proves it was sent in {@code direction} under {@code key}; else fails. */
    static Frame authenticated(JobToken key, byte[] mac, byte direction, FrameType type, int operation, byte[] bytes)
            throws ProtocolException {
        if (!MessageDigest.isEqual(mac, frameMac(key, direction, type, operation, bytes))) {
            throw new ProtocolException("a message that failed authentication");
        }
        return new Frame(type, operation, bytes, type.reportsFailure() ? Cause.read(bytes) : null);
    }

    /** The MAC of a message sent in {@code direction} under {@code key}. */
    static byte[] frameMac(JobToken key, byte direction, FrameType type, int operation, byte[] bytes) {
        return key.mac("message", new byte[] {direction, type.wire}, JobToken.ints(operation), bytes);
    }

    /** A length-prefixed UTF-8 text of at most {@link Rendezvous#MAX_REASON_BYTES}. */
    public static void writeText(DataOutputStream out, String text) throws IOException {
        byte[] bytes = Cause.truncated(text);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    public static String readText(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > Rendezvous.MAX_REASON_BYTES) {
            throw new ProtocolException(
                    "a text of " + length + " bytes, above the limit of " + Rendezvous.MAX_REASON_BYTES);
        }
        return new String(readBytes(in, length), StandardCharsets.UTF_8);
    }

    /**
     * How the server answers an operation: per rank, 0, the length and the value it sent, or 1 and why it is gone.
     * The values may differ in length (a broadcast's ranks other than 0 send none).
     */
    public static byte[] gathered(Rendezvous.Survivors gathered) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            for (int r = 0; r < gathered.values().length; r++) {
                String reason = gathered.goneReasons()[r];
                out.writeBoolean(reason != null);
                if (reason != null) {
                    writeText(out, reason);
                    continue;
                }
                out.writeInt(gathered.values()[r].length);
                out.write(gathered.values()[r]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The most bytes of {@link #gathered} for {@code size} ranks. */
    public static int gatheredBytes(int size) {
        return Math.toIntExact(Rendezvous.MAX_GATHER_BYTES + (long) size * (5 + 4 + Rendezvous.MAX_REASON_BYTES));
    }

    /** What {@link #gathered} wrote. */
    public static Rendezvous.Survivors readGathered(byte[] bytes, int size) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        byte[][] values = new byte[size][];
        String[] gone = new String[size];
        for (int r = 0; r < size; r++) {
            if (in.readBoolean()) {
                gone[r] = readText(in);
                continue;
            }
            int length = in.readInt();
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
    public static byte[] readBytes(DataInputStream in, int count) throws IOException {
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
    public interface IoStep<T> {
        T run() throws IOException;
    }
}
