package dev.collectives.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Backends;
import dev.collectives.spark.example.DataParallelTraining;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example application in a JVM of its own, as {@code spark-submit --master local[4]} starts it: the master comes
 * from the {@code spark.master} property, not from the code.
 */
class DataParallelTrainingApplicationTest {
    @Test
    void theApplicationPrintsTheSameWeightsForEveryRank(@TempDir Path dir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                Backends.NATIVE_ACCESS_OPTION));
        // the --add-opens flags that Spark needs on this JDK, as this JVM got them
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens") || a.startsWith("-Dio.netty"))
                .forEach(command::add);
        command.addAll(List.of(
                "-Dspark.master=local[4]",
                "-Dspark.ui.enabled=false",
                "-Dspark.driver.host=127.0.0.1",
                "-Dspark.driver.bindAddress=127.0.0.1",
                "-cp",
                System.getProperty("java.class.path"),
                DataParallelTraining.class.getName(),
                "4"));
        Path output = dir.resolve("output.txt");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().remove("COLLECTIVES_BACKEND");
        Process application = builder.start();
        boolean exited = application.waitFor(5, TimeUnit.MINUTES);
        if (!exited) {
            application.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(output);

        assertTrue(exited, "the application did not exit; output: " + lines);
        assertEquals(0, application.exitValue(), String.join("\n", lines));
        String expected = lines.stream()
                .filter(l -> l.startsWith("one process, 10 steps: w0 = "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(String.join("\n", lines)));
        String weights = expected.substring("one process, 10 steps: ".length());
        for (int rank = 0; rank < 4; rank++) {
            String prefix = "rank " + rank + " (16 rows): ";
            assertTrue(lines.contains(prefix + weights + ": the same"), prefix + " in " + lines);
        }
    }
}
