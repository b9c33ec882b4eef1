package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Stream;

/** A stream of this backend as what enqueues on it sees it: its handle, and the communicator that enqueued last. */
interface IssuedStream extends Stream {
    /** {@code stream} as a stream of this backend; refuses another backend's, naming {@code rank}. */
    static IssuedStream of(Stream stream, int rank) {
        if (!(stream instanceof IssuedStream issued)) {
            throw CollectivesException.usage(rank, "stream " + stream + " is not a stream of this backend");
        }
        return issued;
    }

    /** {@code owner} enqueues work on this stream (an op, a graph launch): a synchronize waits for its work. */
    void issuedBy(NativeComm owner);
}
