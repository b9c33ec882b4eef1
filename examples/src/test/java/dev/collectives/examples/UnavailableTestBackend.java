package dev.collectives.examples;

import dev.collectives.runtime.Availability;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.LocalCluster;

/** A backend whose library is missing, registered for the tests only: the runner must say so and stop. */
public final class UnavailableTestBackend implements Backend {
    static final String NAME = "unavailable-test";
    static final String REASON = "libunavailable-test.so.1 not found on LD_LIBRARY_PATH";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Availability availability() {
        return Availability.unavailable(REASON);
    }

    @Override
    public LocalCluster local(int ranks) {
        throw CollectivesException.usage(-1, NAME + " is unavailable: " + REASON);
    }
}
