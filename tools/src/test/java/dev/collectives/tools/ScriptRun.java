package dev.collectives.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** What one run of a script of {@code gpu/} returned and printed, run with this JVM and its class path. */
public record ScriptRun(int status, String text) {
    /**
     * Runs {@code gpu/<script>} with {@code variables}, JAVA and CLASS_PATH being this JVM's, its output going to
     * {@code log}.
     */
    public static ScriptRun of(String script, Map<String, String> variables, Path log)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(
                        "bash", Path.of("..", "gpu", script).toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(variables);
        builder.environment()
                .put(
                        "JAVA",
                        Path.of(System.getProperty("java.home"), "bin", "java").toString());
        builder.environment().put("CLASS_PATH", System.getProperty("java.class.path"));
        int status = builder.start().waitFor();
        return new ScriptRun(status, Files.readString(log, StandardCharsets.UTF_8));
    }
}
