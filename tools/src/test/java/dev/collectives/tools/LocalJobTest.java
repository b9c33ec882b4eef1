package dev.collectives.tools;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job whose process cannot start is given up at once, with the process's own words. */
class LocalJobTest {
    @TempDir
    Path logs;

    @Test
    void aProcessThatExitsBeforeItJoinsIsGivenUpWithTheEndOfItsLog() {
        LocalJob.NotStarted e = assertThrows(
                LocalJob.NotStarted.class,
                () -> LocalJob.start(
                        new LocalJob.Placement("sim", 1, "test"),
                        2,
                        List.of("-XX:+NoSuchOptionOfTheJvm"),
                        List.of("list"),
                        r -> logs.resolve("rank-" + r + ".log"),
                        (env, r) -> {}));

        String message = e.getMessage();
        assertTrue(
                message.startsWith("rank 0 did not start: it exited with status 1; the end of its log ("
                        + logs.resolve("rank-0.log") + "):\n    "),
                message);
        assertTrue(message.contains("NoSuchOptionOfTheJvm"), message);
    }
}
