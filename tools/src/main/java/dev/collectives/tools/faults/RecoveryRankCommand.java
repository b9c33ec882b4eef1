package dev.collectives.tools.faults;

import dev.collectives.examples.Runner;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * One rank of a recovery job, started by {@code faults}: the runner's {@code recovery} with the options given (the
 * place and backend from the environment, a replacement's {@code COLLECTIVES_REPLACEMENT=1} too).
 */
@Command(
        name = RecoveryRankCommand.NAME,
        hidden = true,
        description = "One rank of a recovery job (started by 'faults'): the runner's recovery.")
public final class RecoveryRankCommand implements Callable<Integer> {
    static final String NAME = "recovery-rank";

    private final PrintStream out;

    /** The options of the runner's recovery, passed on as they are. */
    @Unmatched
    List<String> options = new ArrayList<>();

    public RecoveryRankCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        List<String> arguments = new ArrayList<>(List.of("recovery"));
        arguments.addAll(options);
        return Runner.run(arguments.toArray(String[]::new), out);
    }
}
