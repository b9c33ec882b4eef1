package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Event;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.FlightRecorder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A stream of one simulated device: a worker thread runs its work in order, asynchronously to the threads that
 * enqueue it. Capture is thread-local: while one thread captures, its ops on this stream are recorded instead of
 * run, and other threads may not use the stream. Every stream has a handle by which {@link
 * SimCommunicator#wrapStream} finds it, as a framework's stream is found by its {@code cudaStream_t}.
 */
final class SimStream implements Stream {
    private static final AtomicLong NEXT_HANDLE = new AtomicLong(0x5000);
    private static final Map<Long, SimStream> BY_HANDLE = new ConcurrentHashMap<>();

    /** The communicator that created it, or null for a framework's stream ({@link SimForeignStream}). */
    private final SimCommunicator comm;

    private final int device;
    private final long handle = NEXT_HANDLE.getAndIncrement();
    private final String name;
    private final Thread worker;
    private final ArrayDeque<Task> queue = new ArrayDeque<>();
    private long submitted;
    private long completed;
    private RuntimeException firstFailure;
    private boolean closed;
    private CaptureStatus status = CaptureStatus.NONE;
    private Thread capturingThread;
    private List<List<OpCall>> captured;
    private SimCommunicator capturedFor;
    private String invalidation;

    /** @param comm the communicator that creates it, or null for a framework's stream on {@code device} */
    SimStream(SimCommunicator comm, int device, String name) {
        this.comm = comm;
        this.device = device;
        this.name = name;
        this.worker = new Thread(this::work, name);
        worker.setDaemon(true);
        worker.start();
        BY_HANDLE.put(handle, this);
    }

    /** The live stream with this handle, or null. */
    static SimStream byHandle(long handle) {
        return BY_HANDLE.get(handle);
    }

    /** The simulated device (the rank) whose stream this is. */
    int device() {
        return device;
    }

    /** One item of stream work, run on the worker in order; a failure is kept for {@link #synchronize()}. */
    interface Task {
        void run();
    }

    /**
     * Queues work to run after everything queued before it. The work is made (numbered for matching, its memory
     * pinned) only once the stream has accepted it, so that a refused call uses up no number.
     */
    synchronized void enqueue(Supplier<? extends Task> launch) {
        requireOpen();
        if (status != CaptureStatus.NONE && capturingThread != Thread.currentThread()) {
            throw CollectivesException.usage(
                    device,
                    name + " is being captured by thread '"
                            + capturingThread.getName() + "' in thread-local mode; thread '"
                            + Thread.currentThread().getName() + "' may not enqueue work on it");
        }
        queue.add(launch.get());
        submitted++;
        notifyAll();
    }

    /** Whether {@code thread} is capturing this stream: then its ops are recorded, not run. */
    synchronized boolean isCapturedBy(Thread thread) {
        return status != CaptureStatus.NONE && capturingThread == thread;
    }

    /** Records a step (one op or a group) of {@code issuer}'s into the active capture. */
    synchronized void capture(SimCommunicator issuer, List<OpCall> step) {
        if (status == CaptureStatus.INVALIDATED) {
            throw CollectivesException.usage(
                    device, "capture on " + name + " was invalidated (" + invalidation + "); end it and capture again");
        }
        if (capturedFor != null && capturedFor != issuer) {
            throw CollectivesException.usage(
                    device,
                    "capture on " + name + " holds ops of " + capturedFor
                            + "; one graph captures the ops of one communicator");
        }
        capturedFor = issuer;
        captured.add(List.copyOf(step));
    }

    private void work() {
        while (true) {
            Task task;
            synchronized (this) {
                while (queue.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // keep serving: the stream stops when it is closed and drained
                    }
                }
                if (queue.isEmpty()) {
                    return;
                }
                task = queue.poll();
            }
            RuntimeException failure = null;
            try {
                task.run();
            } catch (RuntimeException e) {
                failure = e;
            } catch (Error e) {
                failure = new IllegalStateException("stream work failed on " + name, e);
            }
            synchronized (this) {
                completed++;
                if (failure != null && firstFailure == null) {
                    firstFailure = failure;
                }
                notifyAll();
            }
        }
    }

    @Override
    public void synchronize() {
        RuntimeException failure;
        synchronized (this) {
            if (status == CaptureStatus.ACTIVE) {
                invalidate("synchronize() was called on the capturing stream");
                throw CollectivesException.usage(
                        device,
                        "synchronize() on " + name + " while it is being"
                                + " captured: the capture is invalidated (as {cuda,musa}StreamSynchronize does)");
            }
            long target = submitted;
            Monitors.awaitUninterruptibly(this, () -> completed >= target);
            failure = firstFailure;
            firstFailure = null;
        }
        FlightRecorder.synchronizedStream(this, failure);
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public synchronized void beginCapture() {
        requireOpen();
        if (status != CaptureStatus.NONE) {
            throw CollectivesException.usage(
                    device, name + " is already being captured by thread '" + capturingThread.getName() + "'");
        }
        status = CaptureStatus.ACTIVE;
        capturingThread = Thread.currentThread();
        captured = new ArrayList<>();
        capturedFor = null;
        invalidation = null;
    }

    @Override
    public Graph endCapture() {
        List<List<OpCall>> steps;
        SimCommunicator owner;
        synchronized (this) {
            if (status == CaptureStatus.NONE) {
                throw CollectivesException.usage(device, "endCapture() on " + name + ", which is not capturing");
            }
            if (capturingThread != Thread.currentThread()) {
                throw CollectivesException.usage(
                        device,
                        "endCapture() on " + name + " from thread '"
                                + Thread.currentThread().getName() + "', but thread '" + capturingThread.getName()
                                + "' began the capture (thread-local mode)");
            }
            boolean invalid = status == CaptureStatus.INVALIDATED;
            status = CaptureStatus.NONE;
            capturingThread = null;
            steps = captured;
            owner = capturedFor != null ? capturedFor : comm;
            captured = null;
            capturedFor = null;
            if (invalid) {
                throw CollectivesException.usage(
                        device,
                        "the capture on " + name + " was invalidated (" + invalidation + "); no graph was made");
            }
        }
        if (owner == null) {
            throw CollectivesException.usage(
                    device,
                    "the capture on " + name + " recorded no op of any "
                            + "communicator; the simulated device makes no empty graph on a framework's stream");
        }
        return new SimGraph(owner, steps);
    }

    @Override
    public synchronized CaptureStatus captureStatus() {
        return status;
    }

    private void invalidate(String reason) {
        status = CaptureStatus.INVALIDATED;
        invalidation = reason;
    }

    private void requireOpen() {
        if (closed) {
            throw CollectivesException.usage(device, name + " is closed");
        }
    }

    // ---- handles and events ---------------------------------------------------------------------------------

    @Override
    public long handle() {
        return handle;
    }

    @Override
    public Event record() {
        return record(comm);
    }

    /** An event after the work queued so far, failing with {@code errorSource}'s abort (none when null). */
    synchronized SimEvent record(SimCommunicator errorSource) {
        requireOpen();
        requireNotCapturing("record()");
        return new SimEvent(this, submitted, errorSource);
    }

    /** Whether the first {@code items} items queued have finished. */
    synchronized boolean finished(long items) {
        return completed >= items;
    }

    /** Blocks the calling thread (another stream's worker) until the first {@code items} items have finished. */
    synchronized void awaitFinished(long items) {
        Monitors.awaitUninterruptibly(this, () -> completed >= items);
    }

    @Override
    public void waitFor(Event event) {
        if (!(event instanceof SimEvent)) {
            throw CollectivesException.usage(device, "waitFor(" + event + "): not an event of the simulated device");
        }
        SimEvent simEvent = (SimEvent) event;
        synchronized (this) {
            requireNotCapturing("waitFor()");
        }
        simEvent.orderAfter("waitFor()", () -> enqueue(() -> simEvent::awaitOnWorker));
    }

    private void requireNotCapturing(String call) {
        if (status != CaptureStatus.NONE) {
            throw CollectivesException.usage(
                    device,
                    call + " on " + name + " while it is being captured: an "
                            + "event recorded or awaited inside a capture would join other streams into the graph, which "
                            + "pipelines do not do");
        }
    }

    /** Lets queued work finish, then stops the worker. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (!closed) {
                closed = true;
                BY_HANDLE.remove(handle);
                if (status == CaptureStatus.ACTIVE) {
                    invalidate("the stream was closed");
                }
                notifyAll();
            }
        }
        if (Thread.currentThread() != worker) {
            boolean interrupted = false;
            while (worker.isAlive()) {
                try {
                    worker.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
