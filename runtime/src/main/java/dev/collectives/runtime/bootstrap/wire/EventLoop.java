package dev.collectives.runtime.bootstrap.wire;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;

/**
 * One thread that serves many sockets without blocking: it hands each ready socket to what is attached to its key
 * ({@link Selected}), runs what other threads hand it ({@link #execute}, which wakes it), and runs its timers. What
 * it serves is owned by this thread alone, so no lock is held across a socket write. A job's server runs one
 * ({@code ServerLoop}); so does every process with members ({@code MemberLoop}).
 */
public class EventLoop {
    /** Stack size of the control plane's own threads: a few reads and writes deep. */
    private static final long SMALL_STACK_BYTES = 256 * 1024;
    /** What a key of this loop is attached to: it hears, on the loop thread, that its socket is ready. */
    public interface Selected {
        void selected(SelectionKey key);
    }

    /** A task due at a time; cancelled, it never runs. */
    public static final class Timer implements Comparable<Timer> {
        private final long due;
        private final Runnable task;
        private boolean cancelled;

        private Timer(long due, Runnable task) {
            this.due = due;
            this.task = task;
        }

        public void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer other) {
            return Long.compare(due, other.due);
        }
    }

    private final Selector selector;
    private final Thread thread;
    private final String name;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private volatile boolean stopping;
    /** When the loop last woke to serve, in nanoseconds: what it has not read by then, it could not have. */
    private volatile long roundStarted = System.nanoTime();

    public EventLoop(String name) throws IOException {
        this.name = name;
        this.selector = Selector.open();
        this.thread = smallDaemonThreads(name).newThread(this::run);
    }

    /** Starts the loop thread. */
    public final void startThread() {
        thread.start();
    }

    /** Whether the caller runs on the loop thread. */
    public final boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** Registers {@code channel} for {@code ops}, served by {@code selected}; called on the loop thread. */
    public final SelectionKey register(SelectableChannel channel, int ops, Selected selected)
            throws ClosedChannelException {
        return channel.register(selector, ops, selected);
    }

    /** Runs {@code task} on the loop thread, in its next round (also where called on it, after what runs now). */
    public final void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** Runs {@code task} on the loop thread once {@code delay} has passed; called on the loop thread. */
    public final Timer after(Duration delay, Runnable task) {
        Timer timer = new Timer(System.nanoTime() + delay.toNanos(), task);
        timers.add(timer);
        return timer;
    }

    /** Stops the loop after its current round; every socket registered closes. */
    public final void stop() {
        stopping = true;
        selector.wakeup();
    }

    /** Waits up to {@code limit} for the loop thread to end; true if it did. */
    public final boolean awaitStopped(Duration limit) throws InterruptedException {
        if (!inLoop()) {
            thread.join(Math.max(1, limit.toMillis()));
        }
        return !thread.isAlive();
    }

    /**
     * When the loop last woke to serve: a peer's silence is measured to it, not to the clock, so that a loop late
     * for its sockets (a busy host, a long collection) blames no peer for it.
     */
    public final long roundStarted() {
        return roundStarted;
    }

    /** Once after each round of events: what waiting threads see may have changed. */
    protected void afterEvents() {}

    private void run() {
        try {
            while (!stopping) {
                Timer next = timers.peek();
                long wait = next == null ? 0 : Math.max(1, (next.due - System.nanoTime() + 999_999) / 1_000_000);
                selector.select(wait);
                roundStarted = System.nanoTime();
                for (Runnable task; (task = tasks.poll()) != null; ) {
                    task.run();
                }
                Iterator<SelectionKey> selected = selector.selectedKeys().iterator();
                while (selected.hasNext()) {
                    SelectionKey key = selected.next();
                    selected.remove();
                    if (key.isValid()) {
                        ((Selected) key.attachment()).selected(key);
                    }
                }
                runDueTimers();
                afterEvents();
            }
        } catch (IOException | RuntimeException e) {
            System.getLogger("dev.collectives.bootstrap")
                    .log(System.Logger.Level.WARNING, "the loop " + name + " failed: " + e, e);
        } finally {
            for (SelectionKey key : new ArrayList<>(selector.keys())) {
                closeQuietly(key.channel());
            }
            closeQuietly(selector);
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

    /** Daemon threads named {@code name}, with stacks for a few reads and writes. */
    public static ThreadFactory smallDaemonThreads(String name) {
        return task -> {
            Thread thread = new Thread(null, task, name, SMALL_STACK_BYTES);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Closes {@code resource}, ignoring what closing it throws: for sockets and selectors already given up. */
    public static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
