package dev.collectives.examples;

import dev.collectives.examples.mistakes.Mistakes;
import dev.collectives.examples.pipelines.SeedGraphHaltingInStep;
import dev.collectives.examples.pipelines.ShrinkRecoveryExample;
import java.util.Arrays;
import java.util.List;

/**
 * A test fixture: the runner's command line ({@code args} after the first), whose example is seed-graph with rank
 * {@code args[0]} halting its JVM abruptly as its second step begins, as if the process were killed there.
 */
final class HaltingRank {
    /** The exit status of the halted JVM: what a shell reports for a process killed by SIGKILL. */
    static final int HALTED = ShrinkRecoveryExample.HALTED;

    private HaltingRank() {}

    public static void main(String[] args) {
        int doomed = Integer.parseInt(args[0]);
        List<Example> examples = List.of(new SeedGraphHaltingInStep(doomed, HALTED));
        System.exit(Runner.run(Arrays.copyOfRange(args, 1, args.length), System.out, examples, Mistakes.all()));
    }
}
