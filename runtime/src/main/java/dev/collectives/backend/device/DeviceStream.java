package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * A non-blocking device stream of one rank. {@link #synchronize()} polls the stream and the communicator's
 * asynchronous error (as nccl-tests does), so a failed or aborted peer ends the wait with an exception instead
 * of a hang; a wait longer than {@code collectives.device.syncTimeoutSeconds} (default 300) aborts the
 * communicator. While capturing, it records the memory each op uses, so that the graph keeps it alive (R5).
 */
final class DeviceStream implements Stream {
    private static final long TIMEOUT_NANOS =
            Long.getLong("collectives.device.syncTimeoutSeconds", 300L) * 1_000_000_000L;
    private static final int CAPTURE_MODE_THREAD_LOCAL = 1;

    private final DeviceCommunicator comm;
    final long handle;
    private volatile boolean capturing;
    private Set<NativeMemory> captured;
    private boolean closed;

    DeviceStream(DeviceCommunicator comm) {
        this.comm = comm;
        NativeLibrary n = comm.library();
        long[] out = new long[1];
        n.checkRuntime(NativeShim.streamCreate(n.lib, comm.device(), out), comm.rank(), "StreamCreateWithFlags");
        this.handle = out[0];
    }

    DeviceCommunicator communicator() {
        return comm;
    }

    /** Called by every op enqueued on this stream: during capture, the graph will hold {@code memory}. */
    void used(dev.collectives.runtime.DeviceMemory memory) {
        if (capturing && memory instanceof NativeMemory) {
            captured.add((NativeMemory) memory);
        }
    }

    @Override
    public void synchronize() {
        NativeLibrary n = comm.library();
        long start = System.nanoTime();
        while (true) {
            int rc = NativeShim.streamQuery(n.lib, handle);
            if (rc == 0) {
                return;
            }
            if (rc != NativeLibrary.NOT_READY) {
                n.checkRuntime(rc, comm.rank(), "StreamQuery");
            }
            comm.checkAsyncError();
            if (System.nanoTime() - start > TIMEOUT_NANOS) {
                comm.abort();
                throw CollectivesException.library(Result.REMOTE_ERROR, comm.rank(), "stream synchronize",
                        "no completion within " + TIMEOUT_NANOS / 1_000_000_000L + " s; the communicator was aborted");
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void beginCapture() {
        NativeLibrary n = comm.library();
        captured = Collections.newSetFromMap(new IdentityHashMap<>());
        n.checkRuntime(NativeShim.streamBeginCapture(n.lib, handle, CAPTURE_MODE_THREAD_LOCAL), comm.rank(),
                "StreamBeginCapture");
        capturing = true;
    }

    @Override
    public Graph endCapture() {
        NativeLibrary n = comm.library();
        long[] out = new long[1];
        capturing = false;
        Set<NativeMemory> used = captured;
        captured = null;
        n.checkRuntime(NativeShim.streamEndCapture(n.lib, handle, out), comm.rank(), "StreamEndCapture");
        return new DeviceGraph(comm, out[0], used == null ? Set.of() : used);
    }

    @Override
    public CaptureStatus captureStatus() {
        NativeLibrary n = comm.library();
        int[] status = new int[1];
        n.checkRuntime(NativeShim.streamIsCapturing(n.lib, handle, status), comm.rank(), "StreamIsCapturing");
        return CaptureStatus.values()[status[0]];
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            NativeLibrary n = comm.library();
            n.checkRuntime(NativeShim.streamDestroy(n.lib, handle), comm.rank(), "StreamDestroy");
        }
    }
}
