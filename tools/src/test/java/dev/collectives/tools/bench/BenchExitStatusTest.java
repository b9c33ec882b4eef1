package dev.collectives.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.Runner;
import dev.collectives.tools.Tools;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code bench} commands exit with the statuses their help lists: 2 for a bad command line (found
 * before anything runs), 1 for a run that failed, with its message; and {@code -V} prints the version.
 */
class BenchExitStatusTest {
    @TempDir
    Path dir;

    private record Run(int status, String text) {}

    private static Run bench(String... args) {
        List<String> line = new ArrayList<>(List.of("bench"));
        line.addAll(List.of(args));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            int status = Tools.run(line.toArray(new String[0]), out);
            return new Run(status, bytes.toString(StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest(name = "bench {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "device --backend=sim --min=0          | --min and --max need 1 <= --min <= --max",
                "device --backend=sim --min=64 --max=8 | --min and --max need 1 <= --min <= --max",
                "device --backend=nope                 | unknown backend 'nope'",
                "device --backend=sim --rounds=0       | --rounds needs a positive whole number",
                "device --backend=sim --ranks=2 --ops=allgather --min=4 --max=4 | --max: allgather on 2 rank(s) needs",
                "overhead --backend=sim --batch=0      | --batch needs a positive whole number",
                "memory --backend=sim --instances=0    | --instances needs a positive whole number",
                "shapes --backend=sim --iters=0        | --iters needs a positive whole number",
                "sim-allreduce --ranks=2,0             | --ranks needs a positive whole number",
                "sim-allreduce --min=2048 --max=1024   | --min and --max need 1 <= --min <= --max"
            })
    void aBadOptionValueIsABadCommandLine(String args, String message) {
        Run run = bench(args.strip().split(" "));

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertTrue(run.text().startsWith("error: " + message), run.text());
    }

    @Test
    void plotOfACsvWithoutOutOfPlaceRowsFailsWithStatusOne() throws Exception {
        Path csv = dir.resolve("rows.csv");
        Files.writeString(csv, "op,mode,placement,impl,ranks,bytes,busbw\nallreduce,none,in-place,java,2,8,0.1\n");

        Run run = bench("plot", csv.toString(), dir.resolve("chart.png").toString());

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertEquals("error: no out-of-place rows of allreduce to draw\n", run.text());
    }

    @Test
    void plotOfAFileThatIsNotThereFailsWithStatusOne() {
        Path csv = dir.resolve("absent.csv");

        Run run = bench("plot", csv.toString(), dir.resolve("chart.png").toString());

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertEquals("error: no such file: " + csv + "\n", run.text());
    }

    @Test
    void plotOfRowsOfAnotherBenchmarkNamesTheMissingColumn() throws Exception {
        Path csv = dir.resolve("overhead.csv");
        Files.writeString(csv, "op,mode,ranks,bytes,java_p50_us\nallreduce,none,1,8,1.5\n");

        Run run = bench("plot", csv.toString(), dir.resolve("chart.png").toString());

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertTrue(run.text().startsWith("error: the rows have no column 'impl'"), run.text());
    }

    @Test
    void aBenchmarkThatFailsRunningExitsWithStatusOne() {
        Run overhead = bench("overhead", "--backend=sim", "--rounds=1");
        Run memory = bench("memory", "--backend=sim", "--instances=1");

        assertEquals(Runner.FAILED, overhead.status(), overhead.text());
        assertTrue(overhead.text().contains("has no native baseline"), overhead.text());
        assertEquals(Runner.FAILED, memory.status(), memory.text());
        assertTrue(memory.text().contains("backend sim has no device memory to measure"), memory.text());
    }

    @ParameterizedTest(name = "bench {0} -V")
    @ValueSource(strings = {"device", "overhead", "memory", "shapes", "sim-allreduce", "plot"})
    void versionPrintsTheProjectVersion(String command) {
        Run run = bench(command, "-V");

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().matches("Collectives \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n"), run.text());
    }

    @Test
    void everyBenchmarkHelpListsTheStatuses() {
        for (String command : List.of("device", "overhead", "memory", "shapes", "sim-allreduce", "plot")) {
            Run run = bench(command, "--help");

            assertTrue(run.text().contains("Exit status:\n  0   "), run.text());
            assertTrue(run.text().contains("\n  1   "), run.text());
            assertTrue(run.text().contains("\n  2   a bad command line"), run.text());
        }
    }
}
