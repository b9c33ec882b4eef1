package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Stream;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A stream: a worker thread runs its work in order, asynchronously to the threads that enqueue it. Capture is
 * thread-local: while one thread captures, its ops on this stream are recorded instead of run, and other threads
 * may not use the stream.
 */
final class SimStream implements Stream {
    private final SimCommunicator comm;
    private final String name;
    private final Thread worker;
    private final ArrayDeque<Work> queue = new ArrayDeque<>();
    private long submitted;
    private long completed;
    private RuntimeException firstFailure;
    private boolean closed;
    private CaptureStatus status = CaptureStatus.NONE;
    private Thread capturingThread;
    private List<List<OpCall>> captured;
    private String invalidation;

    SimStream(SimCommunicator comm, String name) {
        this.comm = comm;
        this.name = name;
        this.worker = new Thread(this::work, name);
        worker.setDaemon(true);
        worker.start();
    }

    SimCommunicator communicator() {
        return comm;
    }

    /**
     * Queues work to run after everything queued before it. The work is made (numbered for matching, its memory
     * pinned) only once the stream has accepted it, so that a refused call uses up no number.
     */
    synchronized void enqueue(Supplier<Work> launch) {
        requireOpen();
        if (status != CaptureStatus.NONE && capturingThread != Thread.currentThread()) {
            throw CollectivesException.usage(comm.rank(), name + " is being captured by thread '"
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

    /** Records a step (one op or a group) into the active capture. */
    synchronized void record(List<OpCall> step) {
        if (status == CaptureStatus.INVALIDATED) {
            throw CollectivesException.usage(comm.rank(), "capture on " + name + " was invalidated (" + invalidation
                    + "); end it and capture again");
        }
        captured.add(List.copyOf(step));
    }

    private void work() {
        while (true) {
            Work work;
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
                work = queue.poll();
            }
            RuntimeException failure = null;
            try {
                comm.execute(work.steps());
            } catch (RuntimeException e) {
                failure = e;
            } catch (Error e) {
                failure = new IllegalStateException("stream work failed on " + name, e);
            } finally {
                work.unpin();
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
                throw CollectivesException.usage(comm.rank(), "synchronize() on " + name + " while it is being"
                        + " captured: the capture is invalidated (as musaStreamSynchronize does)");
            }
            long target = submitted;
            Monitors.awaitUninterruptibly(this, () -> completed >= target);
            failure = firstFailure;
            firstFailure = null;
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public synchronized void beginCapture() {
        requireOpen();
        if (status != CaptureStatus.NONE) {
            throw CollectivesException.usage(comm.rank(), name + " is already being captured by thread '"
                    + capturingThread.getName() + "'");
        }
        status = CaptureStatus.ACTIVE;
        capturingThread = Thread.currentThread();
        captured = new ArrayList<>();
        invalidation = null;
    }

    @Override
    public Graph endCapture() {
        List<List<OpCall>> steps;
        synchronized (this) {
            if (status == CaptureStatus.NONE) {
                throw CollectivesException.usage(comm.rank(), "endCapture() on " + name + ", which is not capturing");
            }
            if (capturingThread != Thread.currentThread()) {
                throw CollectivesException.usage(comm.rank(), "endCapture() on " + name + " from thread '"
                        + Thread.currentThread().getName() + "', but thread '" + capturingThread.getName()
                        + "' began the capture (thread-local mode)");
            }
            boolean invalid = status == CaptureStatus.INVALIDATED;
            status = CaptureStatus.NONE;
            capturingThread = null;
            steps = captured;
            captured = null;
            if (invalid) {
                throw CollectivesException.usage(comm.rank(), "the capture on " + name + " was invalidated ("
                        + invalidation + "); no graph was made");
            }
        }
        return new SimGraph(comm, steps);
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
            throw CollectivesException.usage(comm.rank(), name + " is closed");
        }
    }

    /** Lets queued work finish, then stops the worker. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (!closed) {
                closed = true;
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
