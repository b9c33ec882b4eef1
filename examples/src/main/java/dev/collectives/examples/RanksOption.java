package dev.collectives.examples;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --ranks}, the option of every command that runs ranks (the runner's and the tools'), mixed into each with
 * its default: {@code @Mixin RanksOption ranks = new RanksOption("4")}. A command that runs at several rank counts
 * in turn takes them comma-separated ({@link #counts()}); the others take one ({@link #count()}).
 */
public final class RanksOption {
    private static final String OPTION = "--ranks";

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(
            names = OPTION,
            paramLabel = "N",
            description = "the ranks on this host (the command's description says whether threads or processes); "
                    + "comma-separated where a command runs at several counts in turn; default: ${DEFAULT-VALUE}")
    private String text;

    /** @param defaults the default count, or counts comma-separated */
    public RanksOption(String defaults) {
        this.text = defaults;
    }

    /** The rank counts, in the order given; a bad command line unless each is a positive whole number. */
    public List<Integer> counts() {
        List<Integer> counts = new ArrayList<>();
        for (String count : text.split(",", -1)) {
            int n;
            try {
                n = Integer.parseInt(count.strip());
            } catch (NumberFormatException e) {
                n = 0;
            }
            if (n < 1) {
                throw new ParameterException(
                        spec.commandLine(), OPTION + " needs a positive whole number, not '" + count + "'");
            }
            counts.add(n);
        }
        return counts;
    }

    /** The one rank count of a command that runs at one; a bad command line when several are given. */
    public int count() {
        List<Integer> counts = counts();
        if (counts.size() > 1) {
            throw new ParameterException(spec.commandLine(), OPTION + " takes one count here, not '" + text + "'");
        }
        return counts.get(0);
    }
}
