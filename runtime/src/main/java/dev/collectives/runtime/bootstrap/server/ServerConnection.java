package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import dev.collectives.runtime.bootstrap.wire.NioConnection;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One connection of a job's server, as its loop thread serves it without blocking ({@link NioConnection}): who it
 * is, and the slot it holds once admitted. Owned by the loop thread.
 */
public final class ServerConnection extends NioConnection {
    private final ServerLoop loop;
    /** Where it came from: "/127.0.0.1:53312". */
    final String from;
    /** Who it is, for messages: "a peer at /127.0.0.1:53312", then "rank 2 at /127.0.0.1:53312". */
    private String peer;
    /** The slot it holds, once admitted. */
    Slot slot;

    ServerConnection(SocketChannel socket, SelectionKey key, String from, ServerLoop loop) {
        super(socket, key, true, null);
        this.loop = loop;
        this.from = from;
        this.peer = "a peer at " + from;
    }

    String peer() {
        return peer;
    }

    /** Its messages are authenticated with {@code sessionKey} from now on; {@code peer} names it. */
    void admitted(JobToken sessionKey, String peer) {
        authenticated(sessionKey);
        this.peer = peer;
    }

    /**
     * Queues a message for the member; false, queuing nothing, where {@link #MAX_QUEUED_FRAMES} wait already (the
     * member is not reading, and is fenced).
     */
    boolean send(FrameType type, int operation, byte[] bytes) {
        return send(type, operation, bytes, null);
    }

    @Override
    protected void writeFailed(IOException cause) {
        loop.failed(this, cause);
    }
}
