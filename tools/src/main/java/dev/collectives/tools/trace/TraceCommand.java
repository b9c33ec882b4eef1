package dev.collectives.tools.trace;

import dev.collectives.examples.Runner;
import dev.collectives.tools.trace.FlightDumps.BadInput;
import dev.collectives.tools.trace.FlightDumps.Dump;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The tools' {@code trace}: see {@link CommunicatorTrace}. */
@Command(
        name = "trace",
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Reads the flight records that the ranks of a job wrote into DIR (with "
                    + "COLLECTIVES_FLIGHT_RECORDER_DIR or -Dcollectives.flightRecorder.dir set, each rank writes "
                    + "flight-<job>-<communicator>-rank<R>.json at a failure, an abort, a timeout, or when its "
                    + "communicator closes), lines the ranks' operations up by number, and "
                    + "reports per communicator of each job, named by how it came to be (formed, split, shrunk, "
                    + "reformed, grown): the ranks that died where survivors recovered without them, the first "
                    + "operation that ranks called with different calls or sizes, the ranks that never enqueued an "
                    + "operation the others did, the ranks stuck in one, and a table per rank.",
            "Writes a timeline of the ranks' last operations into DIR, each rank a row marking where it stopped and "
                    + "the operation it never reached: " + Timeline.PNG + " and " + Timeline.JSON + ", a Chrome trace "
                    + "(Trace Event Format) that Perfetto (ui.perfetto.dev) and chrome://tracing open."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the ranks agree",
            "1:they parted: a mismatch, an operation some ranks never enqueued, or a " + "rank without a record",
            "2:bad input: no such directory, no record in it, or a file that is not a "
                    + "flight record of this version; or the timeline could not be written"
        })
public final class TraceCommand implements Callable<Integer> {
    private final PrintStream out;

    @Parameters(paramLabel = "DIR", description = "the directory the ranks wrote their records into")
    Path directory;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "show this help, and exit")
    boolean help;

    public TraceCommand(PrintStream out) {
        this.out = out;
    }

    /**
     * What {@code trace} finds in {@code directory}, per communicator: where the ranks parted (empty when they agree),
     * or the one line that says why the directory cannot be read.
     */
    public static List<String> findings(Path directory) {
        try {
            return CommunicatorTrace.of(FlightDumps.read(directory)).stream()
                    .flatMap(trace -> trace.findings().stream())
                    .toList();
        } catch (BadInput e) {
            return List.of("error: " + e.getMessage());
        }
    }

    @Override
    public Integer call() {
        List<Dump> dumps;
        try {
            dumps = FlightDumps.read(directory);
        } catch (BadInput e) {
            out.println("error: " + e.getMessage());
            return Runner.USAGE;
        }
        boolean parted = false;
        List<CommunicatorTrace> traces = CommunicatorTrace.of(dumps);
        for (CommunicatorTrace trace : traces) {
            out.println(trace.title() + ":");
            trace.recovery().ifPresent(how -> out.println("  " + how));
            List<String> findings = trace.findings();
            if (findings.isEmpty()) {
                out.println("  the ranks agree");
            }
            findings.forEach(f -> out.println("  " + f));
            trace.stuck().forEach(s -> out.println("  " + s));
            trace.table().forEach(row -> out.println("  " + row));
            parted |= !findings.isEmpty();
        }
        try {
            new Timeline(traces).write(directory);
            out.println("timeline: " + directory.resolve(Timeline.PNG) + " and " + directory.resolve(Timeline.JSON)
                    + " (a Chrome trace: open it in Perfetto, ui.perfetto.dev)");
        } catch (IOException e) {
            out.println("error: cannot write the timeline into " + directory + ": " + e.getMessage());
            return Runner.USAGE;
        }
        out.flush();
        return parted ? Runner.FAILED : Runner.PASSED;
    }
}
