package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Event;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.FlightRecorder;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * A device stream of one rank: non-blocking when created here, or a framework's stream wrapped by its handle,
 * which {@link #close()} leaves alone. {@link #synchronize()} polls the stream and the communicator's
 * asynchronous error (as nccl-tests does), parking between polls ({@link InProgress}), so a failed or aborted peer,
 * or an abort, ends the wait with an exception instead of a hang; a wait longer than {@value Waits#SYNC_TIMEOUT_PROPERTY} (default 300 s) aborts the
 * communicator, naming the ranks that never arrived where the job is watched. While capturing, it records the
 * memory each op uses, so that the graph keeps it alive (R5).
 */
final class DeviceStream implements IssuedStream {
    private static final int CAPTURE_MODE_THREAD_LOCAL = 1;

    private final DeviceRank comm;
    final long handle;
    private final boolean owned;
    private volatile boolean capturing;
    private Set<NativeMemory> captured;
    private boolean closed;
    /**
     * The communicator whose work the stream waits for: the last one to enqueue on it, as a shrink's child runs on
     * its parent's streams.
     */
    private volatile NativeComm issuer;
    /** The communicator that enqueued last, once it is among {@link #issuers}; null before the first op. */
    private volatile NativeComm lastEnqueued;
    /** Every communicator that enqueued work on it: each is told when it closes. */
    private final Set<NativeComm> issuers = java.util.concurrent.ConcurrentHashMap.newKeySet();

    DeviceStream(DeviceRank comm) {
        this.comm = comm;
        NativeLibrary n = comm.library();
        long[] out = new long[1];
        n.checkRuntime(n.api.streamCreate(n.lib, comm.device(), out), comm.rank(), "StreamCreateWithFlags");
        this.handle = out[0];
        this.owned = true;
        this.issuer = comm.nativeComm();
    }

    /** A stream created elsewhere, by its handle; closing it destroys nothing. */
    DeviceStream(DeviceRank comm, long handle) {
        this.comm = comm;
        this.handle = handle;
        this.owned = false;
        this.issuer = comm.nativeComm();
    }

    /** {@code stream} as a stream of this backend; refuses another backend's, naming {@code rank}. */
    static DeviceStream of(Stream stream, int rank) {
        return (DeviceStream) IssuedStream.of(stream, rank);
    }

    @Override
    public void issuedBy(NativeComm owner) {
        if (lastEnqueued == owner) {
            return; // as for every op after the first: nothing changes
        }
        issuer = owner;
        if (issuers.add(owner)) {
            owner.frees().enqueuedOn(handle);
        }
        lastEnqueued = owner;
    }

    /** Called by every op enqueued on this stream: during capture, the graph will hold the memory of its sides. */
    void used(DeviceBuffer send, DeviceBuffer recv) {
        if (capturing) {
            keep(send);
            keep(recv);
        }
    }

    private void keep(DeviceBuffer side) {
        if (side != null && side.memory() instanceof NativeMemory memory) {
            captured.add(memory);
        }
    }

    @Override
    public void synchronize() {
        try {
            await();
        } catch (RuntimeException failure) {
            FlightRecorder.synchronizedStream(this, failure);
            throw failure;
        }
        FlightRecorder.synchronizedStream(this, null);
    }

    /** Parks between polls of the stream and of its communicator's error, which an abort ends at once. */
    private void await() {
        NativeLibrary n = comm.library();
        NativeComm owner = issuer;
        owner.await("stream synchronize", () -> {
            int rc = n.api.streamQuery(n.lib, handle);
            if (rc == 0) {
                if (owner.isAborted()) {
                    owner.requireOpen(); // its kernels exited at the abort: the stream is idle, its work undone
                }
                return 0;
            }
            if (rc != NativeLibrary.NOT_READY) {
                n.checkRuntime(rc, comm.rank(), "StreamQuery");
            }
            owner.checkAsyncError();
            return InProgress.CODE;
        });
    }

    boolean capturing() {
        return capturing;
    }

    @Override
    public void beginCapture() {
        NativeLibrary n = comm.library();
        captured = Collections.newSetFromMap(new IdentityHashMap<>());
        n.checkRuntime(
                n.api.streamBeginCapture(n.lib, handle, CAPTURE_MODE_THREAD_LOCAL), comm.rank(), "StreamBeginCapture");
        capturing = true;
    }

    @Override
    public Graph endCapture() {
        NativeLibrary n = comm.library();
        long[] out = new long[1];
        capturing = false;
        Set<NativeMemory> used = captured;
        captured = null;
        n.checkRuntime(n.api.streamEndCapture(n.lib, handle, out), comm.rank(), "StreamEndCapture");
        return new DeviceGraph(comm, issuer, out[0], used == null ? Set.of() : used);
    }

    @Override
    public CaptureStatus captureStatus() {
        NativeLibrary n = comm.library();
        int[] status = new int[1];
        n.checkRuntime(n.api.streamIsCapturing(n.lib, handle, status), comm.rank(), "StreamIsCapturing");
        return CaptureStatus.values()[status[0]];
    }

    // ---- handles and events -----------------------------------------------------------------------------------

    @Override
    public long handle() {
        return handle;
    }

    @Override
    public Event record() {
        requireNotCapturing("record()");
        return DeviceStreamEvent.record(comm, handle);
    }

    @Override
    public void waitFor(Event event) {
        if (!(event instanceof DeviceStreamEvent)) {
            throw CollectivesException.usage(
                    comm.rank(), "waitFor(" + event + "): not an event of " + comm.backendName());
        }
        requireNotCapturing("waitFor()");
        NativeLibrary n = comm.library();
        n.requireSymbols(comm.rank(), "Stream.waitFor()", NativeLibrary.Slots.STREAM_WAIT_EVENT);
        DeviceStreamEvent deviceEvent = (DeviceStreamEvent) event;
        deviceEvent.orderAfter(
                "waitFor()",
                () -> n.checkRuntime(
                        n.api.streamWaitEvent(n.lib, handle, deviceEvent.handle), comm.rank(), "StreamWaitEvent"));
    }

    /** Events are not recorded or awaited inside a capture: the graph would join other streams (as on sim). */
    private void requireNotCapturing(String call) {
        if (capturing) {
            throw CollectivesException.usage(
                    comm.rank(),
                    call + " on stream 0x" + Long.toHexString(handle)
                            + " while it is being captured: an event recorded or awaited inside a capture would join other "
                            + "streams into the graph, which pipelines do not do");
        }
    }

    /**
     * Destroys a stream created here; a wrapped one belongs to whoever created it, and is only no longer asked after.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (owned) {
            NativeLibrary n = comm.library();
            comm.nativeComm()
                    .frees()
                    .free(() -> n.checkRuntime(n.api.streamDestroy(n.lib, handle), comm.rank(), "StreamDestroy"));
        }
        issuers.forEach(owner -> owner.frees().streamClosed(handle));
    }
}
