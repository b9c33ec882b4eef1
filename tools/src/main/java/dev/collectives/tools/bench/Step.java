package dev.collectives.tools.bench;

import dev.collectives.runtime.Stream;

/** One enqueue of the measured op: a direct call, a graph launch, or a pipeline step. */
@FunctionalInterface
interface Step {
    void issue(Stream stream);

    default Batch batch() {
        return (stream, n) -> {
            for (int i = 0; i < n; i++) {
                issue(stream);
            }
        };
    }
}
