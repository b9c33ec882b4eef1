package dev.collectives.tools.faults;

import java.util.Locale;

/**
 * A recovery the fault driver proves after a rank is killed: the survivors shrink it away, or they reform the job with
 * a process started in its place (the runner's {@code recovery}, {@code recovery --replace}).
 */
enum Recovery {
    SHRINK("among the survivors"),
    REPLACE("with the replacement of rank ");

    /** What a rank that recovered prints after "recovered: ", in part. */
    private final String recovered;

    Recovery(String recovered) {
        this.recovered = recovered;
    }

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether {@code log} says that its rank ran its steps after this recovery from the death of {@code killed}. */
    boolean recovered(String log, int killed) {
        String line = this == SHRINK ? recovered : recovered + killed;
        return log.lines().anyMatch(l -> l.startsWith("recovered: ") && l.endsWith(line));
    }
}
