package dev.collectives.tools.faults;

import dev.collectives.examples.LabelParser;
import java.util.Locale;

/**
 * A recovery the fault driver proves after a rank is killed: the survivors shrink it away, or they reform the job with
 * a process started in its place (the runner's {@code recovery}, {@code recovery --replace}); or rank 0 is killed
 * while the rendezvous runs in a process of its own (the driver's), and the survivors shrink it away.
 */
enum Recovery {
    SHRINK("among the survivors"),
    REPLACE("with the replacement of rank "),
    RANK_0("among the survivors");

    /** What a rank that recovered prints after "recovered: ", in part. */
    private final String recovered;

    Recovery(String recovered) {
        this.recovered = recovered;
    }

    /** "shrink", "replace", "rank-0": as the command line and the summary name it. */
    String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The rank a job of {@code n} ranks loses: rank 0 for {@link #RANK_0}, else a middle one. */
    int killed(int n) {
        return this == RANK_0 ? 0 : n / 2;
    }

    /** Whether the rendezvous runs in a process of its own, which every rank joins: rank 0 may die then. */
    boolean servedApart() {
        return this == RANK_0;
    }

    /** Whether {@code log} says that its rank ran its steps after this recovery from the death of {@code killed}. */
    boolean recovered(String log, int killed) {
        String line = this == REPLACE ? recovered + killed : recovered;
        return log.lines().anyMatch(l -> l.startsWith("recovered: ") && l.endsWith(line));
    }

    /** Reads a recovery by its {@link #label()}, in any case. */
    static final class Parser extends LabelParser<Recovery> {
        public Parser() {
            super(values(), Recovery::label);
        }
    }
}
