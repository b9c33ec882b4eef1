package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.RankJvm.Finished;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every example passes on sim in a JVM where JavaCPP's native library cannot load: JavaCPP is told it runs on
 * another platform than this one, whose build it cannot load, so sim's memory falls back to direct ByteBuffers.
 */
@Timeout(300)
class WithoutJavaCppNativesTest {
    @TempDir
    Path dir;

    @Test
    void everyExamplePassesOnSimWithJavaCppsNativesOfAnotherPlatform() throws IOException {
        String otherPlatform = "aarch64".equals(System.getProperty("os.arch")) ? "linux-x86_64" : "linux-arm64";
        // the decision is logged at DEBUG: print it, so that the test sees the fallback was taken
        Path logging = Files.writeString(
                dir.resolve("logging.properties"),
                "handlers=java.util.logging.ConsoleHandler\n"
                        + "java.util.logging.ConsoleHandler.level=FINE\ndev.collectives.sim.level=FINE\n");
        String options =
                "-Dorg.bytedeco.javacpp.platform=" + otherPlatform + " -Djava.util.logging.config.file=" + logging;
        try (RankJvm jvm = RankJvm.start(
                "runner",
                dir.resolve("runner.log"),
                Runner.class,
                Map.of("JAVA_TOOL_OPTIONS", options),
                List.of("--backend", "sim", "--ranks", "8"))) {
            Finished run = jvm.await(Duration.ofSeconds(240));
            assertEquals(Runner.PASSED, run.status(), run.toString());
            assertTrue(
                    run.output()
                            .contains("host memory: direct ByteBuffers, since JavaCPP's native library does"
                                    + " not load for " + otherPlatform),
                    run.toString());
            assertTrue(run.output().matches("(?s).*examples: \\d+ passed, 0 skipped, 0 failed.*"), run.toString());
        }
    }
}
