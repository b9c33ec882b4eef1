package dev.collectives.backend.sim.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Backends;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * sim without its native kernels, as on a platform they are not built for (macOS, linux-arm64, Windows): a JVM of
 * its own started with {@code -Dcollectives.sim.kernels=java} runs every type × op through allreduce and
 * reducescatter, and its results are bit for bit those of this JVM, which uses the native kernels where they load.
 */
class JavaFallbackTest {
    @Test
    void javaPathGivesTheResultsOfTheNativeKernels() throws Exception {
        List<String> child = runProbe("-D" + NativeKernels.KERNELS_PROPERTY + "=java");
        assertEquals("native kernels: false", child.get(0), "the property must turn the native kernels off");
        assertEquals(
                "digest: " + FallbackProbe.digest(),
                child.get(1),
                "the Java path must compute what the native kernels compute (native here: " + NativeKernels.loaded()
                        + ")");
    }

    private static List<String> runProbe(String property) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        Backends.NATIVE_ACCESS_OPTION,
                        property,
                        "-cp",
                        System.getProperty("java.class.path"),
                        FallbackProbe.class.getName())
                .redirectErrorStream(true)
                .start();
        process.getOutputStream().close();
        assertTrue(process.waitFor(2, TimeUnit.MINUTES), "the probe did not finish in 2 minutes");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        List<String> lines = output.lines()
                .filter(l -> l.startsWith("native kernels: ") || l.startsWith("digest: "))
                .toList();
        assertEquals(2, lines.size(), output);
        return lines;
    }
}
