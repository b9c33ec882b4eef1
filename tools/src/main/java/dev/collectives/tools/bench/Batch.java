package dev.collectives.tools.bench;

import dev.collectives.runtime.Stream;

/** {@code n} enqueues of the measured op by one side. No allocation per call. */
@FunctionalInterface
interface Batch {
    void issue(Stream stream, int n);
}
