package dev.collectives.backend.sim;

/**
 * An op on its way to a stream: {@code seq} matches it with the other ranks' ops (the communicator's collective
 * count for collectives, the per-peer send or recv count for point-to-point), assigned in issue order.
 * {@code entry} is this rank's flight-recorder entry for it, which its failures name (for an op a graph launched,
 * the launch's entry; 0 for another rank's op, read off the wire). {@code graphOp} is its place among the ops
 * captured into the graph that launched it (R4), from 0; -1 for an op issued eagerly.
 */
record Launched(OpCall call, long seq, long entry, int graphOp) {
    /** Whether a graph launched it rather than a call issuing it eagerly. */
    boolean fromGraph() {
        return graphOp >= 0;
    }

    /** How this rank's failures name the collective: by the flight-recorder entry that the trace shows too. */
    String collectiveName() {
        return CommGroup.collectiveName(entry) + (fromGraph() ? " (" + inGraph() + ")" : "");
    }

    /**
     * How this rank's failures name its send or recv, one side of {@code pair}: by its flight-recorder entry, then
     * the pair ("send call #3 (send #0 from rank 0 to rank 1)").
     */
    String pointToPointName(PointToPoint.Key pair) {
        return call.kind().method() + " call #" + entry + " (" + (fromGraph() ? inGraph() + "; " : "") + pair + ")";
    }

    private String inGraph() {
        return "op " + graphOp + " of the graph launched as #" + entry;
    }
}
