package dev.collectives.tools.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.Runner;
import dev.collectives.tools.ToolsOutput;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corpus compiled beforehand, for a Java runtime without the compiler: the harness runs the one it holds, and
 * refuses to stand it in for another.
 */
class PreparedCorpusTest {
    @TempDir
    Path dir;

    @Test
    void aCorpusCompiledIntoAJarRunsAndStandsInForNoOther() {
        String jar = dir.resolve("corpus.jar").toString();
        ToolsOutput prepared =
                ToolsOutput.of("differential", "--prepare-corpus", jar, "--corpus", "3", "--max-count", "256");
        assertEquals(Runner.PASSED, prepared.status(), prepared.text());
        assertEquals(
                "corpus: 3 pipelines of seed 1 (op counts up to 256) compiled into " + jar,
                prepared.text().strip());

        ToolsOutput run = ToolsOutput.of(
                "differential",
                "--backend",
                "sim",
                "--ranks",
                "2",
                "--parts",
                "corpus",
                "--corpus",
                "3",
                "--max-count",
                "256",
                "--corpus-jar",
                jar,
                "--results",
                dir.resolve("r").toString());
        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(
                run.text()
                        .contains("corpus: 3 pipelines of seed 1 (op counts up to 256) generated and compiled "
                                + "with the annotation processor beforehand, into " + jar),
                run.text());
        assertTrue(
                run.text()
                        .endsWith("\ndifferential: 2 ranks: examples 0/0, mistakes 0/0, corpus 3/3, wrap 0/0 "
                                + "agree\n"),
                run.text());

        ToolsOutput other = ToolsOutput.of(
                "differential",
                "--backend",
                "sim",
                "--ranks",
                "2",
                "--parts",
                "corpus",
                "--corpus",
                "3",
                "--seed",
                "2",
                "--max-count",
                "256",
                "--corpus-jar",
                jar,
                "--results",
                dir.resolve("r").toString());
        assertEquals(Runner.USAGE, other.status(), other.text());
        assertTrue(
                other.text()
                        .contains("error: " + jar + " holds the corpus {maxCount=256, seed=1, size=3}, not the "
                                + "one asked for, {maxCount=256, seed=2, size=3}"),
                other.text());
    }
}
