package dev.collectives.tools.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.collectives.tools.IsolatedStart;
import dev.collectives.tools.ProgramClassPath;
import dev.collectives.tools.ToolsOutput;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented {@code faults} command, its driver started as Maven's {@code exec:java} starts it (its classes in a
 * class loader of their own, {@code java.class.path} only the launcher's): every rank process starts and every job is
 * OK; then {@code trace} on the silent job's flight records writes a timeline whose Chrome trace has a row per rank and
 * marks the operation the silent rank never reached.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FaultsCommandLineTest {
    @TempDir
    Path dir;

    @Test
    void theDocumentedFaultsRunsItsRanksWhereverTheDriverWasStartedAndTraceDrawsTheHang() throws Exception {
        Path out = dir.resolve("faults-out");
        Path launcher = Path.of(IsolatedStart.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                launcher.toString(),
                IsolatedStart.class.getName(),
                ProgramClassPath.text()));
        command.addAll(List.of(
                "faults",
                "--backend",
                "sim",
                "--ranks",
                "2",
                "--modes",
                "LOCAL",
                "--faults",
                "kill,silent",
                "--recoveries",
                "replace",
                "--out",
                out.toString()));
        Path log = dir.resolve("driver.log");
        int status = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start()
                .waitFor();
        String output = Files.readString(log, StandardCharsets.UTF_8);

        assertEquals(0, status, output);
        assertTrue(output.contains("\nkill, LOCAL, 2 ranks: OK in "), output);
        assertTrue(output.contains("\nsilent, LOCAL, 2 ranks: OK in "), output);
        assertTrue(output.contains("\nrecovery: replace, LOCAL, 2 ranks, rank 1 killed: OK in "), output);
        Matcher traced = Pattern.compile("\n  trace: rank 1 never enqueued #(\\d+) (\\w+)\\(")
                .matcher(output);
        assertTrue(traced.find(), output);

        Path flight = out.resolve("2-ranks/local/silent/flight");
        ToolsOutput trace = ToolsOutput.of("trace", flight.toString());
        assertTrue(trace.text().contains("\ntimeline: " + flight.resolve("timeline.png") + " and "), trace.text());
        assertTrue(Files.size(flight.resolve("timeline.png")) > 0);
        JsonNode events = new ObjectMapper()
                .readTree(flight.resolve("timeline.json").toFile())
                .get("traceEvents");
        Map<Integer, String> rows = new HashMap<>();
        Map<Integer, JsonNode> stops = new HashMap<>();
        for (JsonNode event : events) {
            if (event.get("name").asText().equals("thread_name")) {
                rows.put(event.get("tid").asInt(), event.get("args").get("name").asText());
            } else if (event.get("ph").asText().equals("i")) {
                stops.put(event.get("tid").asInt(), event.get("args"));
            }
        }
        assertEquals(Map.of(0, "rank 0", 1, "rank 1"), rows);
        assertEquals(
                Long.parseLong(traced.group(1)),
                stops.get(1).get("neverReachedSeq").asLong(),
                events.toString());
        assertTrue(stops.get(1).get("neverReached").asText().startsWith(traced.group(2) + "("), events.toString());
        assertTrue(stops.get(0).get("lastSeq").asLong() >= Long.parseLong(traced.group(1)), events.toString());
        assertTrue(events.toString().contains("\"ph\":\"X\""), events.toString());
    }
}
