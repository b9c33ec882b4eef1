package dev.collectives.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The runner's command line. */
final class Options {
    static final int DEFAULT_RANKS = 4;

    static final String USAGE = String.join("\n",
            "usage: Runner [--backend NAME] [--ranks N] [--example NAME]... [--mistakes] [--list] [--help]",
            "",
            "Runs the examples: binds each pipeline on every rank, fills it with rank- and index-dependent data,",
            "steps it, and checks the results against values computed on the host. Prints each example's",
            "describe() table, its check and its time. Exit status: 0 when every example passed or was skipped,",
            "1 when one failed, 2 for a bad command line or an unavailable backend.",
            "",
            "  --backend NAME   sim (embedded, no GPU), nccl or mccl; default: $COLLECTIVES_BACKEND, else sim",
            "  --ranks N        ranks on this host (threads on sim, one GPU each otherwise); default "
                    + DEFAULT_RANKS,
            "  --example NAME   run only this example (with --mistakes: this mistake); repeatable; see --list",
            "  --mistakes       run the mistakes instead: pipelines bound wrongly on purpose, each of which",
            "                   must fail fast on every rank with its rule's tag instead of hanging",
            "  --list           list the examples and mistakes, and exit",
            "  --help           show this text, and exit");

    Optional<String> backend = Optional.empty();
    int ranks = DEFAULT_RANKS;
    final List<String> examples = new ArrayList<>();
    boolean mistakes;
    boolean list;
    boolean help;

    /** Parses {@code args}; a bad command line throws {@link IllegalArgumentException} saying what is wrong. */
    static Options parse(String... args) {
        Options options = new Options();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--backend":
                    options.backend = Optional.of(valueOf(args, ++i, arg));
                    break;
                case "--ranks":
                    options.ranks = ranks(valueOf(args, ++i, arg));
                    break;
                case "--example":
                    options.examples.add(valueOf(args, ++i, arg));
                    break;
                case "--mistakes":
                    options.mistakes = true;
                    break;
                case "--list":
                    options.list = true;
                    break;
                case "--help":
                case "-h":
                    options.help = true;
                    break;
                default:
                    throw new IllegalArgumentException("unknown option '" + arg + "'");
            }
        }
        return options;
    }

    private static String valueOf(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int ranks(String text) {
        try {
            int n = Integer.parseInt(text);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below with the value
        }
        throw new IllegalArgumentException("--ranks needs a positive whole number, not '" + text + "'");
    }
}
