package dev.collectives.tools.bench;

import dev.collectives.annotation.OpKind;
import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.HelpAndVersion;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Draws the chart of a {@link DeviceBenchmark} or {@link FusionBenchmark} run from its {@code --csv} file, for runs
 * made where the Java runtime has no {@code java.desktop} module (a small runtime image on a GPU machine).
 */
@Command(
        name = "plot",
        versionProvider = BuildVersion.class,
        description = "Draws busbw against size for one op (Java solid beside native dashed, where the rows have "
                + "native ones; a line per mode) from a CSV file that the device benchmark's --csv wrote, or time "
                + "per step against k for one n from the fusion benchmark's.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the chart was written",
            "1:it could not be (no such file, not the device benchmark's "
                    + "rows, no out-of-place rows of the op, no java.desktop)",
            "2:a bad command line"
        })
public final class PlotCommand implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    @Parameters(index = "0", paramLabel = "CSV", description = "the rows, as the device benchmark's --csv wrote them")
    Path csv;

    @Parameters(index = "1", paramLabel = "PNG", description = "the chart to write")
    Path png;

    @Option(names = "--op", paramLabel = "OP", description = "the op whose rows to draw; default: ${DEFAULT-VALUE}")
    String op = new Op(OpKind.ALL_REDUCE).name();

    @Option(
            names = "--title",
            paramLabel = "TEXT",
            description = "what the rows are (\"nccl, 8 H200\"), put in the chart's title "
                    + "between the op and what the lines are")
    String title;

    @Option(
            names = "--n",
            paramLabel = "N",
            defaultValue = "256",
            description = "rows of the fusion benchmark: the elements per op whose rows to draw; "
                    + "default: ${DEFAULT-VALUE}")
    long n;

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new PlotCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Results rows = Results.readCsv(csv);
        if (!rows.rows().isEmpty() && rows.rows().get(0).containsKey("k")) {
            FusionChart.write(rows, n, title, png);
        } else {
            BusbwChart.write(rows, op, title, png);
        }
        return BenchCommandLine.PASSED;
    }
}
