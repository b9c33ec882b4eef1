package dev.collectives.tools;

import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.Commands;
import dev.collectives.examples.Example;
import dev.collectives.examples.Examples;
import dev.collectives.examples.OneLineLogs;
import dev.collectives.examples.Runner;
import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.examples.mistakes.Mistakes;
import dev.collectives.tools.bench.BenchCommandLine;
import dev.collectives.tools.bench.DeviceBenchmark;
import dev.collectives.tools.bench.FusionBenchmark;
import dev.collectives.tools.bench.MemoryBenchmark;
import dev.collectives.tools.bench.OverheadBenchmark;
import dev.collectives.tools.bench.PlotCommand;
import dev.collectives.tools.bench.RendezvousBenchmark;
import dev.collectives.tools.bench.ShapesBenchmark;
import dev.collectives.tools.bench.SimAllReduceBenchmark;
import dev.collectives.tools.differential.DifferentialCommand;
import dev.collectives.tools.differential.RankCommand;
import dev.collectives.tools.faults.FaultRankCommand;
import dev.collectives.tools.faults.FaultsCommand;
import dev.collectives.tools.faults.RecoveryRankCommand;
import dev.collectives.tools.peers.PeersRankCommand;
import dev.collectives.tools.trace.DumpCommand;
import dev.collectives.tools.trace.TraceCommand;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The project's command line, {@code collectives} (the script at the repository's root runs it from the jar the build
 * makes, {@code tools/target/collectives/collectives.jar}): the examples' runner's commands ({@code examples},
 * {@code mistakes}, {@code list}, {@code join}, {@code recovery}, {@code rendezvous}; {@link Commands}), the
 * benchmarks ({@code bench}), the differential harness ({@code differential}), the fault driver ({@code faults}), the
 * flight records' analyser ({@code trace}), the hidden commands those two start once per rank of their jobs
 * ({@link LocalJob}), and {@code peers-rank}, a Java rank of a job with ranks of another library, which
 * {@code gpu/peers.sh} starts. Without a command it runs the examples. {@link #run} runs one, so that tests call it
 * in-process.
 */
public final class Tools {
    /** What the command line runs when it is given nothing. */
    private static final String[] DEFAULT_COMMAND = {"examples"};

    private Tools() {}

    /**
     * The command line: {@code --help} lists the commands.
     *
     * @param args the command and its options
     */
    public static void main(String[] args) {
        OneLineLogs.configure();
        int status = run(args, System.out);
        System.out.flush();
        if (status != Runner.PASSED) {
            System.exit(status);
        }
    }

    /**
     * Runs the command line {@code args}, printing to {@code out}.
     *
     * @param args the command and its options
     * @param out  where the output goes, the errors too
     * @return the exit status the command's help lists
     */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, Examples.all(), Mistakes.all());
    }

    /** {@link #run(String[], PrintStream)} with these examples and mistakes for the differential harness. */
    static int run(String[] args, PrintStream out, List<Example> examples, List<Mistake> mistakes) {
        int status = commandLine(out, examples, mistakes).execute(args.length == 0 ? DEFAULT_COMMAND : args);
        out.flush();
        return status;
    }

    static CommandLine commandLine(PrintStream out, List<Example> examples, List<Mistake> mistakes) {
        CommandLine line = Commands.printingTo(
                Commands.withRunnerCommands(new CommandLine(new Top()), out, examples, mistakes)
                        .addSubcommand(new CommandLine(new Bench()))
                        .addSubcommand(new CommandLine(new DifferentialCommand(out, examples, mistakes)))
                        .addSubcommand(new CommandLine(new RankCommand(out, examples, mistakes)))
                        .addSubcommand(new CommandLine(new FaultsCommand(out)))
                        .addSubcommand(new CommandLine(new FaultRankCommand(out)))
                        .addSubcommand(new CommandLine(new RecoveryRankCommand(out)))
                        .addSubcommand(new CommandLine(new PeersRankCommand(out)))
                        .addSubcommand(new CommandLine(new TraceCommand(out)))
                        .addSubcommand(new CommandLine(new DumpCommand(out))),
                out);
        IExecutionExceptionHandler others = line.getExecutionExceptionHandler();
        return line.setExecutionExceptionHandler((e, parsed, result) ->
                parsed.getParent() != null && parsed.getParent().getCommand() instanceof Bench
                        ? BenchCommandLine.RUN_FAILED.handleExecutionException(e, parsed, result)
                        : others.handleExecutionException(e, parsed, result));
    }

    @Command(
            name = "collectives",
            usageHelpAutoWidth = true,
            synopsisSubcommandLabel = "[COMMAND]",
            versionProvider = BuildVersion.class,
            description = {
                "Collectives' command line: the examples and the mistakes, one rank of a multi-process job and its "
                        + "recovery, a rendezvous in a process of its own, the benchmarks, the differential harness, "
                        + "the fault driver and the flight records' analyser. Each command has its own --help; "
                        + "without a command it runs the examples, as 'examples' does."
            },
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {
                "0:the command passed",
                "1:it failed",
                "2:a bad command line, or an unavailable backend",
                "3:join and recovery: this process could not join the job"
            })
    static final class Top extends Group {
        @Option(
                names = {"-V", "--version"},
                versionHelp = true,
                description = "print the version, and exit")
        boolean version;

        Top() {
            super("a command");
        }
    }

    @Command(
            name = "bench",
            usageHelpAutoWidth = true,
            synopsisSubcommandLabel = "COMMAND",
            description = "The benchmarks: nccl-tests-style tables (size, count, type, redop, time, algbw, busbw, "
                    + "#wrong; out of place and in place), also as CSV or JSON, and a chart of them.",
            subcommands = {
                DeviceBenchmark.class,
                OverheadBenchmark.class,
                MemoryBenchmark.class,
                ShapesBenchmark.class,
                FusionBenchmark.class,
                SimAllReduceBenchmark.class,
                RendezvousBenchmark.class,
                PlotCommand.class
            },
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {
                "0:the benchmark ran, and every size it checked was right",
                "1:a size had wrong elements, or the benchmark failed",
                "2:a bad command line, or an unavailable backend"
            })
    static final class Bench extends Group {
        Bench() {
            super("a benchmark");
        }
    }

    /** A command that only groups others: run without one, it says so, with its usage, and exits with USAGE. */
    private abstract static class Group implements Callable<Integer> {
        private final String member;

        @Spec
        CommandSpec spec;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "show this help, and exit")
        boolean help;

        Group(String member) {
            this.member = member;
        }

        @Override
        public Integer call() {
            CommandLine line = spec.commandLine();
            line.getErr().println("error: name " + member);
            line.usage(line.getErr());
            return Runner.USAGE;
        }
    }
}
