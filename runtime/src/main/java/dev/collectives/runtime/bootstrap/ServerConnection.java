package dev.collectives.runtime.bootstrap;

import java.io.IOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One connection of a job's server, as its loop thread serves it without blocking: the bytes read so far, parsed
 * into whole messages as they complete (a length is checked against its type's bound before the buffer grows for
 * it, and the buffer grows only as bytes arrive), and a bounded queue of what waits to be written, for which the
 * loop asks to hear that the socket can take more only while something waits. Owned by the loop thread.
 */
final class ServerConnection {
    /** How many messages may wait for a member: past it, the member is not reading, and is fenced. */
    static final int MAX_QUEUED_FRAMES = 64;

    private static final int FRAME_HEADER_BYTES = 1 + Integer.BYTES + Integer.BYTES;

    final SocketChannel socket;
    final SelectionKey key;
    private final ServerLoop loop;
    /** Where it came from: "/127.0.0.1:53312". */
    final String from;
    /** Who it is, for messages: "a peer at /127.0.0.1:53312", then "rank 2 at /127.0.0.1:53312". */
    private String peer;
    /** Its messages' key, once admitted; null while it handshakes. */
    private JobToken sessionKey;
    /** The slot it holds, once admitted. */
    Slot slot;

    private ByteBuffer in = ByteBuffer.allocate(128);
    /** What waits to be written: each entry one message (its header, bytes and MAC), or a step of the handshake. */
    private final ArrayDeque<ByteBuffer[]> out = new ArrayDeque<>();
    /** When the last byte went out, or the queue was last empty, in nanoseconds: a member that reads keeps it fresh. */
    private long lastProgress = System.nanoTime();
    /** Whether it closes once what waits has gone out. */
    private boolean closing;

    private boolean closed;

    ServerConnection(SocketChannel socket, SelectionKey key, String from, ServerLoop loop) {
        this.socket = socket;
        this.loop = loop;
        this.key = key;
        this.from = from;
        this.peer = "a peer at " + from;
    }

    String peer() {
        return peer;
    }

    /** Its messages are authenticated with {@code sessionKey} from now on; {@code peer} names it. */
    void admitted(JobToken sessionKey, String peer) {
        this.sessionKey = sessionKey;
        this.peer = peer;
    }

    boolean isClosed() {
        return closed;
    }

    /** Reads what has arrived; false when the other end closed its side. */
    boolean read() throws IOException {
        if (!in.hasRemaining()) {
            in = grown(in, in.capacity() * 2);
        }
        return socket.read(in) >= 0;
    }

    private static ByteBuffer grown(ByteBuffer buffer, int capacity) {
        ByteBuffer larger = ByteBuffer.allocate(capacity);
        buffer.flip();
        larger.put(buffer);
        return larger;
    }

    /** The next {@code count} bytes of the handshake, taken, or null until that many have arrived. */
    byte[] take(int count) {
        if (in.position() < count) {
            if (in.capacity() < count) {
                in = grown(in, count);
            }
            return null;
        }
        in.flip();
        byte[] bytes = new byte[count];
        in.get(bytes);
        in.compact();
        return bytes;
    }

    /**
     * The next whole message, checked and authenticated, or null until it has arrived. Its length is checked against
     * its type's bound ({@code maxData} for values) before the buffer grows for it.
     */
    Channel.Frame nextFrame(int maxData) throws ProtocolException {
        if (in.position() < FRAME_HEADER_BYTES) {
            return null;
        }
        FrameType type = Channel.checkedType(in.get(0), in.getInt(5), maxData);
        int operation = in.getInt(1);
        int length = in.getInt(5);
        int whole = FRAME_HEADER_BYTES + length + JobToken.MAC_BYTES;
        if (in.position() < whole) {
            if (in.capacity() < whole && !in.hasRemaining()) {
                in = grown(in, Math.min(whole, in.capacity() * 2));
            }
            return null;
        }
        in.flip();
        in.position(FRAME_HEADER_BYTES);
        byte[] bytes = new byte[length];
        in.get(bytes);
        byte[] mac = new byte[JobToken.MAC_BYTES];
        in.get(mac);
        in.compact();
        return Channel.authenticated(sessionKey, mac, Channel.TO_ROOT, type, operation, bytes);
    }

    /** Queues raw bytes of the handshake. */
    void queue(byte[] bytes) {
        queue(new ByteBuffer[] {ByteBuffer.wrap(bytes)});
        flushOrReport();
    }

    /**
     * Queues a message of {@code type} for operation {@code operation}; {@code bytes} are shared, never copied, by
     * every member that is sent them. Returns false, queuing nothing, where {@link #MAX_QUEUED_FRAMES} wait already.
     * A write that fails is reported to the loop, which ends the connection in its next round.
     */
    boolean send(FrameType type, int operation, byte[] bytes) {
        if (closed || closing) {
            return true;
        }
        if (out.size() >= MAX_QUEUED_FRAMES) {
            return false;
        }
        queue(new ByteBuffer[] {
            ByteBuffer.allocate(FRAME_HEADER_BYTES)
                    .put(type.wire)
                    .putInt(operation)
                    .putInt(bytes.length)
                    .flip(),
            ByteBuffer.wrap(bytes),
            ByteBuffer.wrap(Channel.frameMac(sessionKey, Channel.FROM_ROOT, type, operation, bytes))
        });
        flushOrReport();
        return true;
    }

    private void flushOrReport() {
        try {
            flush();
        } catch (IOException e) {
            loop.failed(this, e);
        }
    }

    private void queue(ByteBuffer[] message) {
        if (out.isEmpty()) {
            lastProgress = System.nanoTime();
        }
        out.add(message);
    }

    /** Whether nothing waits to be written. */
    boolean idle() {
        return out.isEmpty();
    }

    /** Whether bytes have waited for longer than {@code nanos} without one going out: the member does not read. */
    boolean stuckFor(long nanos, long now) {
        return !out.isEmpty() && now - lastProgress > nanos;
    }

    /** Writes what waits, as much as the socket takes now; asks for the rest to be written when it can. */
    void flush() throws IOException {
        if (closed) {
            return;
        }
        while (!out.isEmpty()) {
            ByteBuffer[] head = out.peek();
            if (socket.write(head) > 0) {
                lastProgress = System.nanoTime();
            }
            if (head[head.length - 1].hasRemaining()) {
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
                return;
            }
            out.poll();
        }
        key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
        if (closing) {
            close();
        }
    }

    /** Closes once what waits has gone out (the loop closes it anyway at a deadline). */
    void closeWhenSent() {
        closing = true;
        if (out.isEmpty()) {
            close();
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        out.clear();
        key.cancel();
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is best effort; the peer sees the connection end either way
        }
    }
}
