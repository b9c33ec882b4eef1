package dev.collectives.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What one in-process run of the tools' command line returned and printed. */
public record ToolsOutput(int status, String text) {
    public static ToolsOutput of(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            int status = Tools.run(args, out);
            return new ToolsOutput(status, bytes.toString(StandardCharsets.UTF_8));
        }
    }
}
