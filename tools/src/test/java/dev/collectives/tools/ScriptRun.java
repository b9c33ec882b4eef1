package dev.collectives.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What one run of a script of {@code gpu/} returned and printed, run with this JVM and its class path; where it
 * failed, followed by the logs it names, which a test's temporary folder does not keep.
 */
public record ScriptRun(int status, String text) {
    /** How much of each log a failure shows: its last lines, where a rank says why it failed. */
    private static final int LOG_TAIL_CHARS = 4000;

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
        String text = Files.readString(log, StandardCharsets.UTF_8);
        return new ScriptRun(status, status == 0 ? text : text + logsNamedIn(text));
    }

    /** The end of each log that {@code text}'s lines name, as "(log: FILE)" or "(logs in FOLDER)". */
    private static String logsNamedIn(String text) throws IOException {
        StringBuilder logs = new StringBuilder();
        Matcher named = Pattern.compile("\\((?:log:|logs in) ([^)]+)\\)").matcher(text);
        while (named.find()) {
            Path path = Path.of(named.group(1));
            List<Path> files;
            if (Files.isDirectory(path)) {
                try (Stream<Path> listed = Files.list(path)) {
                    files = listed.sorted().toList();
                }
            } else {
                files = Files.exists(path) ? List.of(path) : List.of();
            }
            for (Path file : files) {
                String content = Files.readString(file, StandardCharsets.UTF_8);
                logs.append("\n---- the end of ")
                        .append(file)
                        .append(" ----\n")
                        .append(content.substring(Math.max(0, content.length() - LOG_TAIL_CHARS)));
            }
        }
        return logs.toString();
    }
}
