package dev.collectives.tools.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.collectives.examples.Runner;
import dev.collectives.tools.ToolsOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hidden {@code peers-rank} on sim, the default backend, which has no unique id: it says so and joins nothing. */
class PeersRankCommandTest {
    @TempDir
    Path dir;

    @Test
    void onSimMakingAUniqueIdFailsSayingWhyAndWritesNoFile() {
        String backend = System.getenv("COLLECTIVES_BACKEND");
        assumeTrue(backend == null || backend.equals("sim"), "the default backend, sim");
        Path id = dir.resolve("unique-id.hex");

        ToolsOutput run = ToolsOutput.of("peers-rank", "--mode", "GRAPH", "--make-id", id.toString());

        assertEquals(Runner.NOT_JOINED, run.status(), run.text());
        assertTrue(
                run.text()
                        .contains("FAILED to make a unique id: backend 'sim' makes no unique id: its ranks meet "
                                + "through a rendezvous"),
                run.text());
        assertFalse(Files.exists(id));
    }

    @Test
    void wrappingWithoutAUniqueIdFailsSayingWhatItNeedsBeforeLoadingAnyBinding() {
        assumeTrue(System.getenv("COLLECTIVES_UNIQUE_ID") == null, "no unique id in the environment");

        ToolsOutput run = ToolsOutput.of("peers-rank", "--mode", "NONE", "--wrap");

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertTrue(run.text().contains("FAILED on a wrapped handle: --wrap needs COLLECTIVES_UNIQUE_ID"), run.text());
    }
}
