package dev.collectives.annotation;

/** The other side of a point-to-point op. */
public enum Peer {
    /** (rank + 1) mod size */
    NEXT,
    /** (rank - 1 + size) mod size */
    PREVIOUS,
    /** the rank given by {@code peerRank} */
    ABSOLUTE;

    /** The peer's rank as seen from {@code rank} in a communicator of {@code size} ranks. */
    public int resolve(int rank, int size, int peerRank) {
        switch (this) {
            case NEXT:
                return (rank + 1) % size;
            case PREVIOUS:
                return (rank - 1 + size) % size;
            default:
                return peerRank;
        }
    }
}
