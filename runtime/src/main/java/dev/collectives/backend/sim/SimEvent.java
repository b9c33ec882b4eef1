package dev.collectives.backend.sim;

import dev.collectives.runtime.spi.PolledEvent;

/**
 * An event of a simulated stream: done once the stream has finished the items queued before the record. It fails
 * with the abort of the communicator through whose stream it was recorded, as a device event's future fails with
 * the communicator's asynchronous error.
 */
final class SimEvent extends PolledEvent {
    private final SimStream stream;
    private final long items;
    private final SimCommunicator errorSource;

    SimEvent(SimStream stream, long items, SimCommunicator errorSource) {
        super(stream.device(), "event on " + stream + " after item " + items);
        this.stream = stream;
        this.items = items;
        this.errorSource = errorSource;
    }

    @Override
    protected boolean query() {
        if (errorSource != null) {
            errorSource.checkAsyncError("event query");
        }
        return stream.finished(items);
    }

    @Override
    protected void destroyNativeEvent() {
        // nothing native to free
    }

    /** Run on another stream's worker by {@code waitFor}: holds that stream until this event is done. */
    void awaitOnWorker() {
        stream.awaitFinished(items);
    }
}
