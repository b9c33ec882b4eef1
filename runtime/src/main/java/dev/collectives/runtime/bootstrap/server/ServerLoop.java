package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.wire.EventLoop;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The one thread of a job's server: it accepts connections, reads and writes every one of them without blocking,
 * runs what other threads hand it ({@link #execute}, which wakes it), and runs its timers. Whatever it serves is
 * owned by this thread alone, so no lock is ever held across a socket write, and its threads do not grow with the
 * job.
 */
public final class ServerLoop extends EventLoop {
    /** What the loop serves: it hears of each connection accepted, readable or ended, on the loop thread. */
    interface Served {
        void accepted(ServerConnection connection) throws IOException;

        /** Bytes arrived on {@code connection} (already read into it). */
        void readable(ServerConnection connection) throws IOException;

        /** {@code connection} ended, as {@code cause} says (the other end closed it, or it failed). */
        void ended(ServerConnection connection, IOException cause);

        /** Once after each round of events: what waiting threads see may have changed. */
        void afterEvents();
    }

    private final ServerSocketChannel listening;
    private Served served;

    ServerLoop(ServerSocketChannel listening, String name) throws IOException {
        super(name);
        this.listening = listening;
        listening.configureBlocking(false);
        register(listening, SelectionKey.OP_ACCEPT, key -> accept());
    }

    void start(Served served) {
        this.served = served;
        startThread();
    }

    /** A write to {@code connection} failed: it ends in the loop's next round, unless it closed by then. */
    void failed(ServerConnection connection, IOException cause) {
        execute(() -> {
            if (!connection.isClosed()) {
                served.ended(connection, cause);
            }
        });
    }

    /** Accepts no more connections (those accepted are served on). */
    void stopListening() {
        EventLoop.closeQuietly(listening);
    }

    /** Whether it still accepts connections. */
    boolean listening() {
        return listening.isOpen();
    }

    @Override
    protected void afterEvents() {
        served.afterEvents();
    }

    private void serve(ServerConnection connection, SelectionKey key) {
        try {
            if (key.isWritable()) {
                connection.flush();
            }
            if (key.isValid() && key.isReadable()) {
                boolean open = connection.read();
                served.readable(connection);
                if (!open && !connection.isClosed()) {
                    served.ended(connection, new EOFException("the other end closed the connection"));
                }
            }
        } catch (IOException e) {
            if (!connection.isClosed()) {
                served.ended(connection, e);
            }
        }
    }

    private void accept() {
        while (true) {
            SocketChannel socket;
            try {
                socket = listening.accept();
            } catch (IOException e) {
                return; // closed, or out of descriptors for now: the next round tries again
            }
            if (socket == null) {
                return;
            }
            ServerConnection connection;
            try {
                socket.configureBlocking(false);
                socket.setOption(StandardSocketOptions.TCP_NODELAY, true); // a message goes whole: no waiting
                SelectionKey key = register(socket, SelectionKey.OP_READ, null);
                connection = new ServerConnection(socket, key, String.valueOf(socket.getRemoteAddress()), this);
                key.attach((Selected) ready -> serve(connection, ready));
            } catch (IOException e) {
                EventLoop.closeQuietly(socket);
                continue;
            }
            try {
                served.accepted(connection);
            } catch (IOException e) {
                connection.close();
            }
        }
    }
}
