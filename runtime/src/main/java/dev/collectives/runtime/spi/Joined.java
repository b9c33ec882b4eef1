package dev.collectives.runtime.spi;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Stream;

/** The {@link JoinedRank} that backends' {@code join} returns: the stream and communicator it made, owned. */
public record Joined(Communicator comm, Stream stream, int localRank, int device) implements JoinedRank {
    @Override
    public int rank() {
        return comm.rank();
    }

    @Override
    public int size() {
        return comm.size();
    }

    /** The stream, then the communicator (finalize and destroy). */
    @Override
    public void close() {
        try {
            stream.close();
        } finally {
            comm.close();
        }
    }
}
