package dev.collectives.backend.sim;

/**
 * An op on its way to a stream: {@code seq} matches it with the other ranks' ops (the communicator's collective
 * count for collectives, the per-peer send or recv count for point-to-point), assigned in issue order.
 * {@code fromGraph}: launched by a graph rather than issued eagerly (R4).
 */
record Launched(OpCall call, boolean fromGraph, long seq) {}
