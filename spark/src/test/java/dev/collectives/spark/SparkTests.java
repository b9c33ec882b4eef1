package dev.collectives.spark;

import dev.collectives.runtime.Bootstrap;
import java.time.Duration;

/** What the tests' tasks share. */
final class SparkTests {
    /** Long enough for a slow CI host; a test of a failure shortens it. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private SparkTests() {}

    /** Settings of a join: the tests' timeout for each exchange and for the sim's calls. */
    static Bootstrap.Builder settings() {
        return settings(TIMEOUT);
    }

    static Bootstrap.Builder settings(Duration timeout) {
        return Bootstrap.builder().timeout(timeout).option("sim.timeout", timeout.toMillis() + "ms");
    }
}
