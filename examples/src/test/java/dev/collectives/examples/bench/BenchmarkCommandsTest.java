package dev.collectives.examples.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark commands on the sim backend: correctness columns, machine-readable rows, the chart, help. */
class BenchmarkCommandsTest {
    @TempDir
    Path dir;

    @Test
    void deviceChecksEverySizeOutOfPlaceAndInPlaceAndWritesRowsAndChart() throws Exception {
        Path csv = dir.resolve("rows.csv");
        Path json = dir.resolve("rows.json");
        Path png = dir.resolve("chart.png");
        int status = DeviceBenchmark.commandLine(new DeviceBenchmark()).execute("--backend=sim", "--ranks", "2",
                "--max", "4096", "--ops", "allreduce,allgather,reducescatter", "--modes", "none,local,graph",
                "--rounds", "1", "--no-pipelines", "--csv", csv.toString(), "--json", json.toString(), "--plot",
                png.toString());
        assertEquals(0, status, "every size right");
        List<Map<String, Object>> rows = Results.readCsv(csv).rows();
        // 10 sizes (8 B .. 4 KiB); allreduce in and out of place in every mode; allgather/reducescatter in place
        // except under graph registration, where each rank's block would sit at a different offset (R2)
        assertEquals(10 * (3 * 2 + 2 * (2 + 2 + 1)), rows.size());
        for (Map<String, Object> row : rows) {
            assertEquals(0.0, row.get("wrong"), row.toString());
            assertEquals("java", row.get("impl"), "the sim has no native baseline");
            assertTrue(((Number) row.get("time_us")).doubleValue() > 0);
        }
        assertTrue(rows.stream().anyMatch(r -> "in-place".equals(r.get("placement")) && "allgather".equals(r.get("op"))));
        String text = Files.readString(json);
        assertTrue(text.startsWith("[\n  {\"op\": \"allreduce\", \"mode\": \"none\", \"placement\": \"out-of-place\""),
                text.substring(0, 100));
        assertEquals(rows.size(), text.split("\n").length - 2);
        byte[] head = Files.readAllBytes(png);
        assertEquals("PNG", new String(head, 1, 3, StandardCharsets.US_ASCII));
    }

    @Test
    void plotDrawsFromTheCsvOfARun() throws Exception {
        Path csv = dir.resolve("rows.csv");
        Files.writeString(csv, "op,mode,placement,impl,ranks,bytes,busbw\n"
                + "allreduce,none,out-of-place,java,2,8,0.1\nallreduce,none,out-of-place,native,2,8,0.1\n"
                + "allreduce,none,out-of-place,java,2,16,0.2\nallreduce,none,out-of-place,native,2,16,0.2\n");
        Path png = dir.resolve("chart.png");
        assertEquals(0, DeviceBenchmark.commandLine(new PlotCommand()).execute(csv.toString(), png.toString()));
        assertTrue(Files.size(png) > 1000);
        assertNotEquals(0, DeviceBenchmark.commandLine(new PlotCommand()).execute("--op", "allgather", csv.toString(),
                png.toString()), "no rows of that op");
    }

    @Test
    void overheadNeedsANativeBackend() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            assertNotEquals(0, DeviceBenchmark.commandLine(new OverheadBenchmark()).execute("--backend", "sim",
                    "--rounds", "1"));
        } finally {
            System.setErr(err);
        }
        assertTrue(captured.toString(StandardCharsets.UTF_8).contains("has no native baseline"));
    }

    @Test
    void everyCommandDescribesItsOptions() {
        for (Object command : List.of(new DeviceBenchmark(), new OverheadBenchmark(), new MemoryBenchmark(),
                new PlotCommand())) {
            String usage = DeviceBenchmark.commandLine(command).getUsageMessage();
            assertTrue(usage.contains("--help"), usage);
        }
        String device = DeviceBenchmark.commandLine(new DeviceBenchmark()).getUsageMessage();
        for (String option : List.of("--backend", "--ranks", "--min", "--max", "--ops", "--modes", "--csv", "--json",
                "--plot")) {
            assertTrue(device.contains(option), option);
        }
    }
}
