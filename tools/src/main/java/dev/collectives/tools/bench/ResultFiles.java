package dev.collectives.tools.bench;

import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The benchmarks' {@code --csv} and {@code --json}: files the rows are also written to. */
final class ResultFiles {
    @Option(names = "--csv", paramLabel = "FILE", description = "also write the rows as CSV")
    Path csv;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the rows as JSON")
    Path json;

    /** Writes {@code results} to the files asked for, replacing what they held. */
    void write(Results results) throws IOException {
        if (csv != null) {
            results.writeCsv(csv);
        }
        if (json != null) {
            results.writeJson(json);
        }
    }
}
