package dev.collectives.examples;

import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.examples.mistakes.Mistakes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What one in-process run of the runner returned and printed. */
public record RunnerOutput(int status, String text) {
    public static RunnerOutput of(String... args) {
        return of(Examples.all(), Mistakes.all(), args);
    }

    static RunnerOutput of(List<Example> examples, List<Mistake> mistakes, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            int status = Runner.run(args, out, examples, mistakes);
            return new RunnerOutput(status, bytes.toString(StandardCharsets.UTF_8));
        }
    }
}
