package dev.collectives.tools.trace;

import dev.collectives.examples.Runner;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.JobDump;
import dev.collectives.runtime.RendezvousEndpoint;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The tools' {@code dump}: asks a running job's ranks for their flight records now ({@link JobDump}). */
@Command(
        name = "dump",
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Asks the rendezvous server at ENDPOINT (tcp://host:port) that every live rank of its job write its flight"
                    + " records now, with the reason \"asked\", without waiting for a timeout or ending the job; the"
                    + " job token comes from COLLECTIVES_JOB_TOKEN, as the ranks take it. Each rank writes into --dir,"
                    + " or else into its own COLLECTIVES_FLIGHT_RECORDER_DIR. Prints which ranks answered and where"
                    + " they wrote, and which did not and why (gone: dead, excluded, left; or no answer within the"
                    + " server's heartbeat timeout). Then run trace on the directory."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every rank of the job answered",
            "1:some rank did not answer (gone, or not in time)",
            "2:the server could not be asked: no job token, not reachable, or it refused the request"
        })
public final class DumpCommand implements Callable<Integer> {
    private final PrintStream out;

    @Parameters(paramLabel = "ENDPOINT", description = "the job's rendezvous: tcp://host:port")
    String endpoint;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "the directory every rank writes into (default: each rank's COLLECTIVES_FLIGHT_RECORDER_DIR)")
    Path directory;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "show this help, and exit")
    boolean help;

    public DumpCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        List<JobDump.Answer> answers;
        try {
            answers = JobDump.ask(RendezvousEndpoint.parse(endpoint), Optional.ofNullable(directory));
        } catch (BootstrapException | IllegalArgumentException e) {
            out.println("error: " + e.getMessage());
            return Runner.USAGE;
        }
        answers.forEach(out::println);
        long answered = answers.stream()
                .filter(a -> a.outcome() == JobDump.Outcome.WROTE)
                .count();
        out.println(answered + " of " + answers.size() + " ranks answered"
                + (directory != null ? "; trace " + directory + " reads their records" : ""));
        out.flush();
        return answered == answers.size() ? Runner.PASSED : Runner.FAILED;
    }
}
