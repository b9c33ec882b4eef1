package dev.collectives.runtime;

/** Where the ranks of a communicator sit: how many share a node (R8: IB SHARP needs exactly 1). */
public final class Topology {
    private final int size;
    private final int ranksPerNode;

    public Topology(int size, int ranksPerNode) {
        if (size < 1 || ranksPerNode < 1) {
            throw new IllegalArgumentException("size and ranksPerNode must be positive: " + size + ", " + ranksPerNode);
        }
        this.size = size;
        this.ranksPerNode = ranksPerNode;
    }

    public int size() {
        return size;
    }

    public int ranksPerNode() {
        return ranksPerNode;
    }

    public int nodes() {
        return (size + ranksPerNode - 1) / ranksPerNode;
    }

    public int nodeOf(int rank) {
        return rank / ranksPerNode;
    }

    @Override
    public String toString() {
        return size + " ranks, " + ranksPerNode + " per node";
    }
}
