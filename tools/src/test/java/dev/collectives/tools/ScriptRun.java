package dev.collectives.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** What one run of a script of {@code gpu/} returned and printed, run with this JVM and its class path. */
public record ScriptRun(int status, String text) {
    /**
     * Runs {@code gpu/<script>} on sim with {@code variables}: JAVA and CLASS_PATH are this JVM's, the script's logs go
     * under {@code dir/logs} (its OUT) and what it prints to {@code dir/script.log}.
     */
    public static ScriptRun onSim(String script, Path dir, Map<String, String> variables)
            throws IOException, InterruptedException {
        Path log = dir.resolve("script.log");
        ProcessBuilder builder = new ProcessBuilder(
                        "bash", Path.of("..", "gpu", script).toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(variables);
        builder.environment().put("BACKEND", "sim");
        builder.environment().put("OUT", dir.resolve("logs").toString());
        builder.environment()
                .put(
                        "JAVA",
                        Path.of(System.getProperty("java.home"), "bin", "java").toString());
        builder.environment().put("CLASS_PATH", System.getProperty("java.class.path"));
        int status = builder.start().waitFor();
        return new ScriptRun(status, Files.readString(log, StandardCharsets.UTF_8));
    }
}
