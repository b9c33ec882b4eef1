package dev.collectives.tools.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.Example;
import dev.collectives.examples.Examples;
import dev.collectives.examples.mistakes.Mistakes;
import dev.collectives.tools.ScriptRun;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu/differential.sh} with sim on both sides, as the build runs it: sim's threads against sim's processes at
 * 2 and 4 ranks, on a small corpus, agree on every example, mistake, corpus pipeline and kind of framework memory.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DifferentialScriptTest {
    private static final int CORPUS = 12;

    @TempDir
    Path results;

    @Test
    void simInThreadsAndSimInProcessesAgreeOnEverythingAtTwoAndFourRanks() throws Exception {
        ScriptRun run = ScriptRun.onSim(
                "differential.sh",
                results,
                Map.of("RANKS", "2,4", "CORPUS", String.valueOf(CORPUS), "MAX_COUNT", "65536"));
        String output = run.text();

        assertEquals(0, run.status(), output);
        assertTrue(
                output.contains("corpus: " + CORPUS + " pipelines of seed 1 (op counts up to 65536) generated and "
                        + "compiled with the annotation processor"),
                output);
        int mistakes = Mistakes.all().size();
        int wrap = WrapItem.all().size();
        for (int ranks : new int[] {2, 4}) {
            long examples =
                    Examples.all().stream().filter(e -> inRange(e, ranks)).count();
            assertTrue(
                    output.contains("\ndifferential: " + ranks + " ranks: examples " + examples + "/" + examples
                            + ", mistakes " + mistakes + "/" + mistakes + ", corpus " + CORPUS + "/" + CORPUS
                            + ", wrap " + wrap
                            + "/" + wrap + " agree\n"),
                    output);
        }
    }

    private static boolean inRange(Example e, int ranks) {
        return e.minRanks() <= ranks && ranks <= e.maxRanks();
    }
}
