package dev.collectives.runtime;

/** Where the ranks of a communicator sit: how many share a node (R8: IB SHARP needs exactly 1). */
public final class Topology {
    private final int size;
    private final int ranksPerNode;

    /** {@code size} ranks, {@code ranksPerNode} on each node (the last node may have fewer). */
    public Topology(int size, int ranksPerNode) {
        if (size < 1 || ranksPerNode < 1) {
            throw new IllegalArgumentException("size and ranksPerNode must be positive: " + size + ", " + ranksPerNode);
        }
        this.size = size;
        this.ranksPerNode = ranksPerNode;
    }

    /** The number of ranks. */
    public int size() {
        return size;
    }

    /** How many ranks share a node. */
    public int ranksPerNode() {
        return ranksPerNode;
    }

    /** The number of nodes. */
    public int nodes() {
        return (size + ranksPerNode - 1) / ranksPerNode;
    }

    /** The node {@code rank} is on. */
    public int nodeOf(int rank) {
        return rank / ranksPerNode;
    }

    @Override
    public String toString() {
        return size + " ranks, " + ranksPerNode + " per node";
    }
}
