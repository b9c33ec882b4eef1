package dev.collectives.runtime.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The one thread of a job's server: it accepts connections, reads and writes every one of them without blocking,
 * runs what other threads hand it ({@link #execute}, which wakes it), and runs its timers. Whatever it serves is
 * owned by this thread alone, so no lock is ever held across a socket write, and its threads do not grow with the
 * job.
 */
final class ServerLoop {
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

    /** A task due at a time; cancelled, it never runs. */
    static final class Timer implements Comparable<Timer> {
        private final long due;
        private final Runnable task;
        private boolean cancelled;

        private Timer(long due, Runnable task) {
            this.due = due;
            this.task = task;
        }

        void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer other) {
            return Long.compare(due, other.due);
        }
    }

    private final Selector selector;
    private final ServerSocketChannel listening;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private Served served;
    private volatile boolean stopping;

    ServerLoop(ServerSocketChannel listening, String name) throws IOException {
        this.listening = listening;
        this.selector = Selector.open();
        listening.configureBlocking(false);
        listening.register(selector, SelectionKey.OP_ACCEPT);
        this.thread = TcpAdmission.smallDaemonThreads(name).newThread(this::run);
    }

    void start(Served served) {
        this.served = served;
        thread.start();
    }

    /** Runs {@code task} on the loop thread, in its next round (also where called on it, after what runs now). */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** A write to {@code connection} failed: it ends in the loop's next round, unless it closed by then. */
    void failed(ServerConnection connection, IOException cause) {
        execute(() -> {
            if (!connection.isClosed()) {
                served.ended(connection, cause);
            }
        });
    }

    /** Runs {@code task} on the loop thread once {@code delay} has passed; called on the loop thread. */
    Timer after(Duration delay, Runnable task) {
        Timer timer = new Timer(System.nanoTime() + delay.toNanos(), task);
        timers.add(timer);
        return timer;
    }

    /** Accepts no more connections (those accepted are served on). */
    void stopListening() {
        TcpAdmission.closeQuietly(listening);
    }

    /** Whether it still accepts connections. */
    boolean listening() {
        return listening.isOpen();
    }

    /** Stops the loop after its current round; every connection closes. */
    void stop() {
        stopping = true;
        selector.wakeup();
    }

    /** Waits up to {@code limit} for the loop thread to end; true if it did. */
    boolean awaitStopped(Duration limit) throws InterruptedException {
        if (Thread.currentThread() != thread) {
            thread.join(Math.max(1, limit.toMillis()));
        }
        return !thread.isAlive();
    }

    private void run() {
        try {
            while (!stopping) {
                Timer next = timers.peek();
                long wait = next == null ? 0 : Math.max(1, (next.due - System.nanoTime() + 999_999) / 1_000_000);
                selector.select(wait);
                for (Runnable task; (task = tasks.poll()) != null; ) {
                    task.run();
                }
                Iterator<SelectionKey> selected = selector.selectedKeys().iterator();
                while (selected.hasNext()) {
                    SelectionKey key = selected.next();
                    selected.remove();
                    serve(key);
                }
                runDueTimers();
                served.afterEvents();
            }
        } catch (IOException e) {
            System.getLogger("dev.collectives.bootstrap")
                    .log(System.Logger.Level.WARNING, "the rendezvous server's loop failed: " + e);
        } finally {
            for (SelectionKey key : new ArrayList<>(selector.keys())) {
                TcpAdmission.closeQuietly(key.channel());
            }
            TcpAdmission.closeQuietly(selector);
        }
    }

    private void serve(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.channel() == listening) {
            accept();
            return;
        }
        ServerConnection connection = (ServerConnection) key.attachment();
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
                SelectionKey key = socket.register(selector, SelectionKey.OP_READ);
                connection = new ServerConnection(socket, key, String.valueOf(socket.getRemoteAddress()), this);
                key.attach(connection);
            } catch (IOException e) {
                TcpAdmission.closeQuietly(socket);
                continue;
            }
            try {
                served.accepted(connection);
            } catch (IOException e) {
                connection.close();
            }
        }
    }

    private void runDueTimers() {
        long now = System.nanoTime();
        List<Timer> due = new ArrayList<>();
        while (!timers.isEmpty() && timers.peek().due <= now) {
            due.add(timers.poll());
        }
        due.stream().filter(t -> !t.cancelled).forEach(t -> t.task.run());
    }
}
