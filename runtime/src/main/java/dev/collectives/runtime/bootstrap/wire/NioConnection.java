package dev.collectives.runtime.bootstrap.wire;

import java.io.IOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * One control connection as an {@link EventLoop} serves it without blocking, at either end: the bytes read so far,
 * parsed into whole messages as they complete (a length is checked against its type's bound before the buffer grows
 * for it, and the buffer grows only as bytes arrive), and a bounded queue of what waits to be written, for which the
 * loop asks to hear that the socket can take more only while something waits. Owned by its loop thread.
 */
public abstract class NioConnection {
    /** How many messages may wait for the other end: past it, it is not reading. */
    public static final int MAX_QUEUED_FRAMES = 64;

    private static final int FRAME_HEADER_BYTES = 1 + Integer.BYTES + Integer.BYTES;

    protected final SocketChannel socket;
    protected final SelectionKey key;
    /** The direction of what it sends and of what it reads, which each message's MAC covers. */
    private final byte sending;

    private final byte receiving;
    /** Its messages' key, once admitted; null while it handshakes. */
    private JobToken sessionKey;

    private ByteBuffer in = ByteBuffer.allocate(128);
    /** What waits to be written: each one message (its header, bytes and MAC), or a step of the handshake. */
    private final ArrayDeque<Outgoing> out = new ArrayDeque<>();
    /** When the last byte went out, or the queue was last empty, in nanoseconds: a peer that reads keeps it fresh. */
    private long lastProgress = System.nanoTime();
    /** Whether it closes once what waits has gone out. */
    private boolean closing;

    private boolean closed;

    /** A message that waits to be written, and who waits to hear it was (or null). */
    private record Outgoing(ByteBuffer[] buffers, CompletableFuture<Void> written) {}

    public NioConnection(SocketChannel socket, SelectionKey key, boolean root, JobToken sessionKey) {
        this.socket = socket;
        this.key = key;
        this.sending = root ? Channel.FROM_ROOT : Channel.TO_ROOT;
        this.receiving = root ? Channel.TO_ROOT : Channel.FROM_ROOT;
        this.sessionKey = sessionKey;
    }

    /** Its messages are authenticated with {@code sessionKey} from now on. */
    public final void authenticated(JobToken sessionKey) {
        this.sessionKey = sessionKey;
    }

    public final boolean isClosed() {
        return closed;
    }

    /** Bytes that arrived before the loop took the connection over (they are parsed first). */
    public final void unread(byte[] bytes) {
        if (in.remaining() < bytes.length) {
            in = grown(in, in.position() + bytes.length);
        }
        in.put(bytes);
    }

    /** Reads what has arrived; false when the other end closed its side. */
    public final boolean read() throws IOException {
        if (!in.hasRemaining()) {
            in = grown(in, in.capacity() * 2);
        }
        return socket.read(in) >= 0;
    }

    /** Reads all that has arrived so far, whatever happens to the connection: what the other end said before it ended. */
    public final void readWhatArrived() {
        try {
            int count;
            do {
                if (!in.hasRemaining()) {
                    in = grown(in, in.capacity() * 2);
                }
                count = socket.read(in);
            } while (count > 0);
        } catch (IOException ended) {
            // what came before the end is read; the end itself is the caller's news
        }
    }

    private static ByteBuffer grown(ByteBuffer buffer, int capacity) {
        ByteBuffer larger = ByteBuffer.allocate(capacity);
        buffer.flip();
        larger.put(buffer);
        return larger;
    }

    /** The next {@code count} bytes of the handshake, taken, or null until that many have arrived. */
    public final byte[] take(int count) {
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
    public final Channel.Frame nextFrame(int maxData) throws ProtocolException {
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
        return Channel.authenticated(sessionKey, mac, receiving, type, operation, bytes);
    }

    /** Queues raw bytes of the handshake. */
    public final void queue(byte[] bytes) {
        queue(new Outgoing(new ByteBuffer[] {ByteBuffer.wrap(bytes)}, null));
        flushOrReport();
    }

    /**
     * Queues a message of {@code type} for operation {@code operation}; {@code bytes} are shared, never copied, by
     * every peer that is sent them. Returns false, queuing nothing, where {@link #MAX_QUEUED_FRAMES} wait already.
     * A write that fails is reported ({@link #writeFailed}); {@code written}, where given, hears when the message
     * went out whole, or that it never will.
     */
    public final boolean send(FrameType type, int operation, byte[] bytes, CompletableFuture<Void> written) {
        if (closed || closing) {
            if (written != null) {
                written.completeExceptionally(new ClosedChannelException());
            }
            return true;
        }
        if (out.size() >= MAX_QUEUED_FRAMES) {
            return false;
        }
        queue(new Outgoing(
                new ByteBuffer[] {
                    ByteBuffer.allocate(FRAME_HEADER_BYTES)
                            .put(type.wire)
                            .putInt(operation)
                            .putInt(bytes.length)
                            .flip(),
                    ByteBuffer.wrap(bytes),
                    ByteBuffer.wrap(Channel.frameMac(sessionKey, sending, type, operation, bytes))
                },
                written));
        flushOrReport();
        return true;
    }

    /** A write failed: the connection ends, as its loop decides. */
    protected abstract void writeFailed(IOException cause);

    private void flushOrReport() {
        try {
            flush();
        } catch (IOException e) {
            writeFailed(e);
        }
    }

    private void queue(Outgoing message) {
        if (out.isEmpty()) {
            lastProgress = System.nanoTime();
        }
        out.add(message);
    }

    /** Whether nothing waits to be written. */
    public final boolean idle() {
        return out.isEmpty();
    }

    /** Whether bytes have waited for longer than {@code nanos} without one going out: the peer does not read. */
    public final boolean stuckFor(long nanos, long now) {
        return !out.isEmpty() && now - lastProgress > nanos;
    }

    /** Writes what waits, as much as the socket takes now; asks for the rest to be written when it can. */
    public final void flush() throws IOException {
        if (closed) {
            return;
        }
        while (!out.isEmpty()) {
            Outgoing head = out.peek();
            if (socket.write(head.buffers()) > 0) {
                lastProgress = System.nanoTime();
            }
            if (head.buffers()[head.buffers().length - 1].hasRemaining()) {
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
                return;
            }
            out.poll();
            if (head.written() != null) {
                head.written().complete(null);
            }
        }
        key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
        if (closing) {
            close();
        }
    }

    /** Closes once what waits has gone out (the loop closes it anyway at a deadline). */
    public final void closeWhenSent() {
        closing = true;
        if (out.isEmpty()) {
            close();
        }
    }

    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Outgoing unsent : out) {
            if (unsent.written() != null) {
                unsent.written().completeExceptionally(new ClosedChannelException());
            }
        }
        out.clear();
        key.cancel();
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is best effort; the peer sees the connection end either way
        }
    }
}
