package dev.collectives.runtime.bootstrap;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * One authenticated TCP connection between rank 0 and another rank. Everything on the wire is primitives and
 * length-prefixed byte arrays read with {@link DataInputStream}; lengths are checked against a bound before
 * anything is allocated. Every message after the handshake carries an HMAC under a key derived from the job
 * token and both sides' nonces, over its direction, type, operation number and bytes.
 *
 * <pre>
 * handshake  rank 0 -> peer: int MAGIC, int VERSION, byte[32] server nonce
 *            peer -> rank 0: int MAGIC, int VERSION, int rank, int size, byte[32] client nonce,
 *                            byte[32] HMAC(token; "join", server nonce, client nonce, rank, size)
 *            rank 0 -> peer: byte ACCEPTED, byte[32] HMAC(token; "accept", server nonce, client nonce, rank, size)
 *                         or byte REJECTED, int length, UTF-8 reason
 * message    byte type (DATA | ABORT), int operation, int length, bytes, byte[32] HMAC(session key; ...)
 * </pre>
 */
final class Channel implements AutoCloseable {
    static final int MAGIC = 0x436f4c4c;
    static final int VERSION = 1;
    static final byte ACCEPTED = 0;
    static final byte REJECTED = 1;
    static final byte DATA = 1;
    /** Rank 0 ends the job; the bytes are the reason, as UTF-8 text. */
    static final byte ABORT = 2;

    private static final byte FROM_ROOT = 0;
    private static final byte TO_ROOT = 1;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private String peer;
    private JobToken sessionKey;
    private byte sending;
    private byte receiving;

    /** A message: its type and bytes. */
    record Frame(byte type, byte[] bytes) {
        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    Channel(Socket socket, String peer) throws IOException {
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

    void send(byte type, int operation, byte[] bytes, Deadline deadline) throws IOException {
        byte[] mac = sessionKey.mac("message", new byte[] {sending, type}, JobToken.ints(operation), bytes);
        within(deadline, () -> {
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
     * The next message: DATA for {@code operation} of at most {@code maxData} bytes, or ABORT, which rank 0 may send
     * at any time (also while others are still joining).
     */
    Frame receive(int operation, int maxData, Deadline deadline) throws IOException {
        return within(deadline, () -> {
            byte type = in.readByte();
            int received = in.readInt();
            int length = in.readInt();
            int max = type == DATA ? maxData : type == ABORT ? Rendezvous.MAX_REASON_BYTES : -1;
            if (max < 0) {
                throw new ProtocolException("a message of unknown type " + type);
            }
            if (length < 0 || length > max) {
                throw new ProtocolException("a message of " + length + " bytes, above the limit of " + max);
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            byte[] mac = new byte[JobToken.MAC_BYTES];
            in.readFully(mac);
            if (!sessionKey.verify(mac, "message", new byte[] {receiving, type}, JobToken.ints(received), bytes)) {
                throw new ProtocolException("a message that failed authentication");
            }
            if (type == DATA && received != operation) {
                throw new ProtocolException("a message for operation #" + received + " during operation #"
                        + operation + " (the ranks called different operations)");
            }
            return new Frame(type, bytes);
        });
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
            throw new ProtocolException("a text of " + length + " bytes, above the limit of "
                    + Rendezvous.MAX_REASON_BYTES);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static byte[] truncate(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= Rendezvous.MAX_REASON_BYTES) {
            return bytes;
        }
        return new String(bytes, 0, Rendezvous.MAX_REASON_BYTES - 3, StandardCharsets.UTF_8)
                .replace("\uFFFD", "").concat("...").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] readBytes(DataInputStream in, int count) throws IOException {
        byte[] bytes = new byte[count];
        in.readFully(bytes);
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
