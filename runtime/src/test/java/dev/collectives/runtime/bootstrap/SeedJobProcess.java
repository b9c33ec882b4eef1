package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;

/** One process of a multi-process job running the seed's examples on {@code COLLECTIVES_BACKEND}. */
public final class SeedJobProcess {
    private SeedJobProcess() {}

    public static void main(String[] args) {
        try {
            Bootstrap bootstrap = Bootstrap.fromEnvironment();
            System.out.println("STARTED " + bootstrap.describe());
            try (JoinedRank me = Backends.fromEnvironment().join(bootstrap)) {
                System.out.println("JOINED " + me.comm() + ", " + me.comm().topology());
                SeedJob.run(me).forEach(System.out::println);
            }
            System.out.println("DONE");
        } catch (CollectivesException | AssertionError e) {
            System.out.println("FAILED after 0 ms: " + e.getMessage());
            System.exit(3);
        }
    }
}
