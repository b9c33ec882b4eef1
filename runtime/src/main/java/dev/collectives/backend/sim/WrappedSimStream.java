package dev.collectives.backend.sim;

import dev.collectives.runtime.Event;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Stream;

/**
 * A stream created elsewhere (by a framework, or by another communicator), as {@link SimCommunicator#wrapStream}
 * returns it: it uses that stream, and {@link #close()} leaves it alone.
 */
final class WrappedSimStream implements Stream {
    private final SimStream target;
    private final SimCommunicator comm;

    WrappedSimStream(SimStream target, SimCommunicator comm) {
        this.target = target;
        this.comm = comm;
    }

    SimStream target() {
        return target;
    }

    @Override
    public void synchronize() {
        target.synchronize();
    }

    @Override
    public void beginCapture() {
        target.beginCapture();
    }

    @Override
    public Graph endCapture() {
        return target.endCapture();
    }

    @Override
    public CaptureStatus captureStatus() {
        return target.captureStatus();
    }

    @Override
    public long handle() {
        return target.handle();
    }

    /** Fails with the wrapping communicator's abort. */
    @Override
    public Event record() {
        return target.record(comm);
    }

    @Override
    public void waitFor(Event event) {
        target.waitFor(event);
    }

    /** Destroys nothing: the stream belongs to whoever created it. */
    @Override
    public void close() {
        // not ours to destroy
    }

    @Override
    public String toString() {
        return target + " (wrapped)";
    }
}
