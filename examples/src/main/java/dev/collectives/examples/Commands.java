package dev.collectives.examples;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.examples.pipelines.Death;
import dev.collectives.examples.pipelines.ShrinkRecoveryExample;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The runner's command line, built on picocli: with no subcommand it runs the examples (or, with
 * {@code --mistakes}, the mistakes); the subcommands run the examples, the mistakes, one rank of a multi-process job,
 * a failure and its recovery, a rendezvous in a process of its own, or the list. Every command takes {@code --help}, and every option {@code --name value}
 * as well as {@code --name=value}. {@link #printingTo} sets up the tools' command line alike.
 */
public final class Commands {
    static final int DEFAULT_RANKS = 4;

    private Commands() {}

    /** The whole command line, printing to {@code out}, choosing among these examples and mistakes. */
    static CommandLine commandLine(PrintStream out, List<Example> examples, List<Mistake> mistakes) {
        Catalogue catalogue = new Catalogue(out, examples, mistakes);
        return printingTo(withRunnerCommands(new CommandLine(new Top(catalogue)), out, examples, mistakes), out);
    }

    /**
     * {@code line} with the runner's subcommands added ({@code examples}, {@code mistakes}, {@code list},
     * {@code join}, {@code recovery}, {@code rendezvous}), printing to {@code out} and choosing among these examples
     * and mistakes: the project's command line is the tools' with these.
     */
    public static CommandLine withRunnerCommands(
            CommandLine line, PrintStream out, List<Example> examples, List<Mistake> mistakes) {
        Catalogue catalogue = new Catalogue(out, examples, mistakes);
        return line.addSubcommand(new CommandLine(new ExamplesCommand(catalogue)))
                .addSubcommand(new CommandLine(new MistakesCommand(catalogue)))
                .addSubcommand(new CommandLine(new ListCommand(catalogue)))
                .addSubcommand(new CommandLine(new JoinCommand(catalogue)))
                .addSubcommand(new CommandLine(new RecoveryCommand(catalogue)))
                .addSubcommand(new CommandLine(new RendezvousCommand(out)));
    }

    /**
     * {@code line}, its subcommands added, printing to {@code out}: enum values in any case; a bad command line, or a
     * command's {@link IllegalArgumentException}, printed as an error (with the synopsis and where to find more for
     * the former) and ending with {@link Runner#USAGE}.
     */
    public static CommandLine printingTo(CommandLine line, PrintStream out) {
        PrintWriter writer = new PrintWriter(out, true);
        return line.setOut(writer)
                .setErr(writer)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler((e, args) -> {
                    CommandLine command = e.getCommandLine();
                    writer.println("error: " + e.getMessage());
                    writer.print(command.getHelp().fullSynopsis());
                    writer.println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more.");
                    return Runner.USAGE;
                })
                .setExecutionExceptionHandler((e, parsed, result) -> {
                    if (e instanceof IllegalArgumentException) {
                        writer.println("error: " + e.getMessage());
                        return Runner.USAGE;
                    }
                    throw e;
                });
    }

    /** The runner's --backend and --ranks: $COLLECTIVES_BACKEND, else sim, and {@value #DEFAULT_RANKS} ranks. */
    private static ClusterOptions runnerDefaults() {
        return new ClusterOptions(Backends.DEFAULT, String.valueOf(DEFAULT_RANKS));
    }

    /** What the commands run and print to. */
    record Catalogue(PrintStream out, List<Example> examples, List<Mistake> mistakes) {}

    @Command(
            name = "runner",
            sortOptions = false,
            usageHelpAutoWidth = true,
            versionProvider = BuildVersion.class,
            description = {
                "Runs the examples: binds each pipeline on every rank, fills it with rank- and "
                        + "index-dependent data, steps it, and checks the results against values computed on the host. "
                        + "Prints each example's describe() table, its check and its time.",
                "With --mistakes, or the subcommand 'mistakes', runs the mistakes instead: pipelines bound wrongly "
                        + "on purpose, each of which must fail fast on every rank with its rule's tag."
            },
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {
                "0:every example (or mistake) passed or was skipped",
                "1:one failed",
                "2:a bad command line, or an unavailable backend"
            })
    static final class Top implements Callable<Integer> {
        private final Catalogue catalogue;

        @Mixin
        ClusterOptions cluster = runnerDefaults();

        @Option(
                names = "--example",
                paramLabel = "NAME",
                description = "run only this example (with --mistakes: this mistake); repeatable; see --list")
        List<String> names = new ArrayList<>();

        @Option(names = "--mistakes", description = "run the mistakes instead of the examples")
        boolean mistakes;

        @Option(names = "--list", description = "list the examples and the mistakes, and exit")
        boolean list;

        @Mixin
        HelpAndVersion options = new HelpAndVersion();

        Top(Catalogue catalogue) {
            this.catalogue = catalogue;
        }

        @Override
        public Integer call() {
            if (list) {
                return Runner.list(catalogue);
            }
            return mistakes
                    ? Runner.runMistakes(catalogue, cluster, names)
                    : Runner.runExamples(catalogue, cluster, names);
        }
    }

    /** A command over the catalogue of examples and mistakes; its help option last, after its own. */
    abstract static class CatalogueCommand implements Callable<Integer> {
        final Catalogue catalogue;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "show this help, and exit",
                order = 100)
        boolean help;

        CatalogueCommand(Catalogue catalogue) {
            this.catalogue = catalogue;
        }
    }

    @Command(
            name = "examples",
            sortOptions = false,
            usageHelpAutoWidth = true,
            description =
                    "Runs the examples (all of them, or those named), each on a fresh cluster of --ranks ranks in "
                            + "this process: threads on sim, a GPU each otherwise. Prints each example's describe() table, "
                            + "its check and its time.",
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {
                "0:every example passed or was skipped",
                "1:one failed",
                "2:a bad command line, or an unavailable backend"
            })
    static final class ExamplesCommand extends CatalogueCommand {
        @Mixin
        ClusterOptions cluster = runnerDefaults();

        @Parameters(paramLabel = "NAME", description = "the examples to run, in this order; default: all (see list)")
        List<String> names = new ArrayList<>();

        ExamplesCommand(Catalogue catalogue) {
            super(catalogue);
        }

        @Override
        public Integer call() {
            return Runner.runExamples(catalogue, cluster, names);
        }
    }

    @Command(
            name = "mistakes",
            sortOptions = false,
            usageHelpAutoWidth = true,
            description = "Runs the mistakes (all of them, or those named), each on a fresh cluster of --ranks ranks "
                    + "in this process (threads on sim, a GPU each otherwise): each binds a pipeline wrongly on "
                    + "purpose and must fail fast on every rank with its rule's tag instead of hanging.",
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {
                "0:every mistake was caught with its rule, or was skipped",
                "1:one was not caught, or caught as another rule",
                "2:a bad command line, or an unavailable backend"
            })
    static final class MistakesCommand extends CatalogueCommand {
        @Mixin
        ClusterOptions cluster = runnerDefaults();

        @Parameters(paramLabel = "NAME", description = "the mistakes to run, in this order; default: all (see list)")
        List<String> names = new ArrayList<>();

        MistakesCommand(Catalogue catalogue) {
            super(catalogue);
        }

        @Override
        public Integer call() {
            return Runner.runMistakes(catalogue, cluster, names);
        }
    }

    @Command(
            name = "join",
            sortOptions = false,
            usageHelpAutoWidth = true,
            description = {
                "Runs one rank of a multi-process job, started once per rank by mpirun, srun, a "
                        + "torchrun-style launcher or by hand: finds this process's rank, the world size and the "
                        + "rendezvous in the launcher's variables or COLLECTIVES_*, joins the other processes on "
                        + "$COLLECTIVES_BACKEND (default sim), and runs the examples named (or, with --mistakes, the "
                        + "mistakes) on this rank, printing its own reports and verdicts. Give every rank the same names."
            },
            exitCodeListHeading = "%nExit status (of this rank):%n",
            exitCodeList = {
                "0:every example passed, or was skipped (out of its rank range, or needing a capability "
                        + "the backend lacks); with --mistakes: every mistake raised its rule's error, or was skipped",
                "1:an example failed (an error, a wrong result, a rank that failed or vanished); with --mistakes: "
                        + "one raised no error, or another error than its rule's",
                "2:a bad command line or setting, or an unavailable backend",
                "3:this process could not join the job (a rank that never came, a wrong job token, a rank gone "
                        + "while joining)"
            })
    static final class JoinCommand extends CatalogueCommand {
        @Option(names = "--mistakes", description = "run the mistakes instead of the examples")
        boolean mistakes;

        @Parameters(
                paramLabel = "NAME",
                description = "the examples (or mistakes) to run, in this order; default: " + "all (see list)")
        List<String> names = new ArrayList<>();

        JoinCommand(Catalogue catalogue) {
            super(catalogue);
        }

        @Override
        public Integer call() {
            return Runner.runJoined(catalogue, mistakes, names);
        }
    }

    @Command(
            name = "recovery",
            sortOptions = false,
            usageHelpAutoWidth = true,
            description = {
                "Runs one rank of a multi-process job, as 'join' does, through a failure and its recovery: "
                        + "a gradient allreduce whose rank --kill dies as --death says; the others' step fails naming "
                        + "it, they shrink "
                        + "it away with comm.shrink, bind the pipeline again on the survivors and run --steps steps, "
                        + "each checked against the survivors' sum. With --replace they wait instead for a process "
                        + "started in the dead rank's place (this command with COLLECTIVES_RANK of the dead rank and "
                        + "COLLECTIVES_REPLACEMENT=1), reform the job with it (comm.reform), and all of them run step "
                        + "2 again and --steps more, each checked against every rank's sum. With --grow N no rank "
                        + "dies: after step 1 the ranks grow the job by N processes that join it (comm.grow), which "
                        + "rank 0's process starts (this command with COLLECTIVES_JOINING=1, their output prefixed "
                        + "'joiner N: '), and all of them run --steps steps at the new size, each checked against every "
                        + "rank's sum. Start it once per rank, at least --kill + 1 of them (and 2).",
                "The deaths: halt: the rank halts its process as its step 2 begins (exit status "
                        + ShrinkRecoveryExample.HALTED
                        + ", as if killed); kill, freeze: every rank steps on, each step "
                        + "checked, and once the rank ran " + Death.READY_AFTER + " steps it prints 'ready to die: … "
                        + "in process PID' and steps on, for whoever drives the job to send that process SIGKILL "
                        + "(kill) or SIGSTOP (freeze: the others declare it dead when its heartbeats stop, "
                        + "COLLECTIVES_HEARTBEAT_TIMEOUT; resumed with SIGCONT, its step fails saying it was excluded "
                        + "and it exits with status 1). Every rank waits up to "
                        + ShrinkRecoveryExample.DEATH_WAIT_SECONDS + " s for that death."
            },
            exitCodeListHeading = "%nExit status (of this rank):%n",
            exitCodeList = {
                "0:the step was recovered and its result is right",
                "1:it failed (the failure was not reported, the shrink failed, or a wrong result)",
                "2:a bad command line or setting, or an unavailable backend",
                "3:this process could not join the job",
                ShrinkRecoveryExample.HALTED + ":this is the rank that halts (--death halt)"
            })
    static final class RecoveryCommand extends CatalogueCommand {
        @Spec
        CommandSpec spec;

        @Option(
                names = "--kill",
                paramLabel = "RANK",
                description = "the rank that dies; 0 only where every rank joins a rendezvous in a process of its "
                        + "own (the command rendezvous, COLLECTIVES_RENDEZVOUS_SERVER=standalone); default: 1")
        int doomed = 1;

        @Option(
                names = "--death",
                paramLabel = "HOW",
                converter = Death.Parser.class,
                description = "how the rank dies: halt (itself, as its step 2 begins), kill or freeze (by a signal "
                        + "from outside, once it says it is ready to die); default: halt")
        Death death = Death.HALT;

        @Option(
                names = "--registration",
                paramLabel = "MODE",
                description = "how the gradients pipeline registers: ${COMPLETION-CANDIDATES}; default: GRAPH")
        Registration registration = Registration.GRAPH;

        @Option(
                names = "--steps",
                paramLabel = "N",
                description = "the steps the survivors run after the recovery, each checked; default: 1")
        int steps = 1;

        @Option(
                names = "--grow",
                paramLabel = "N",
                description = "no rank dies: the ranks take in N processes that join the job after step 1, started"
                        + " by rank 0's process; default: 0 (none)")
        int grow;

        @Option(
                names = "--replace",
                description = "the survivors reform the job with a replacement of the dead rank instead of shrinking"
                        + " it away")
        boolean replace;

        RecoveryCommand(Catalogue catalogue) {
            super(catalogue);
        }

        @Override
        public Integer call() {
            boolean standalone = Bootstrap.fromEnvironment()
                    .option("rendezvousServer")
                    .filter(value -> value.equalsIgnoreCase("standalone"))
                    .isPresent();
            if (doomed < (standalone ? 0 : 1)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--kill needs a rank other than 0 where rank 0 serves the rendezvous (when it dies no "
                                + "survivor can form a communicator; serve it apart with the command 'rendezvous' and "
                                + "COLLECTIVES_RENDEZVOUS_SERVER=standalone), not " + doomed);
            }
            if (steps < 1) {
                throw new ParameterException(spec.commandLine(), "--steps needs 1 or more, not " + steps);
            }
            boolean replacement = Bootstrap.fromEnvironment()
                    .option("replacement")
                    .filter(value -> value.equals("1") || value.equalsIgnoreCase("true"))
                    .isPresent();
            if (replacement && !replace) {
                throw new ParameterException(
                        spec.commandLine(), "COLLECTIVES_REPLACEMENT is set: a replacement runs with --replace");
            }
            if (grow < 0 || (grow > 0 && replace)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--grow needs 1 or more processes to take in, and no --replace, not " + grow
                                + (replace ? " with --replace" : ""));
            }
            Bootstrap bootstrap = Bootstrap.fromEnvironment();
            boolean joining = bootstrap.joining();
            if (joining && grow == 0) {
                throw new ParameterException(
                        spec.commandLine(), "COLLECTIVES_JOINING is set: a process that joins runs with --grow");
            }
            if (grow > 0) {
                return grow(bootstrap, joining);
            }
            return Runner.runJoined(
                    catalogue.out(),
                    List.of(
                            replace
                                    ? ShrinkRecoveryExample.replacing(
                                            doomed,
                                            death,
                                            ShrinkRecoveryExample.HALTED,
                                            registration,
                                            steps,
                                            replacement)
                                    : new ShrinkRecoveryExample(
                                            doomed, death, ShrinkRecoveryExample.HALTED, registration, steps)));
        }

        /**
         * Rank 0's process starts the processes that join; every process runs the growth, and rank 0's status counts
         * theirs too.
         */
        private int grow(Bootstrap bootstrap, boolean joining) {
            List<Example> growing = List.of(ShrinkRecoveryExample.growing(grow, registration, steps, joining));
            if (joining || bootstrap.rank() != 0) {
                return Runner.runJoined(catalogue.out(), growing);
            }
            List<String> arguments = List.of(
                    "--grow",
                    String.valueOf(grow),
                    "--registration",
                    registration.name(),
                    "--steps",
                    String.valueOf(steps));
            try (JoiningProcesses joiners = new JoiningProcesses(grow, arguments, catalogue.out())) {
                int status = Runner.runJoined(catalogue.out(), growing);
                int theirs = joiners.awaitExit(bootstrap.timeout().toSeconds());
                return status != 0 ? status : theirs;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
        }
    }

    @Command(
            name = "list",
            description = "Lists the examples and the mistakes.",
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = "0:always")
    static final class ListCommand extends CatalogueCommand {
        ListCommand(Catalogue catalogue) {
            super(catalogue);
        }

        @Override
        public Integer call() {
            return Runner.list(catalogue);
        }
    }
}
