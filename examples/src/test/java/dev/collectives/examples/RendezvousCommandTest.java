package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code runner rendezvous}: the heartbeat timeout it watches the ranks with, given or by default, and bad ones. */
class RendezvousCommandTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";

    @TempDir
    Path dir;

    /** A job of one rank that never joins: the server says what it watches with, and fails at its 1 s timeout. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"--heartbeat-timeout=1500ms, 1.5 s", "--heartbeat-timeout=2m, 120 s", "--heartbeat-timeout 9, 9 s"})
    void theServerWatchesTheRanksWithTheHeartbeatTimeoutGiven(String option, String shown) throws IOException {
        RunnerOutput run = serve(option.split(" "));

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertTrue(
                run.text()
                        .matches("(?s)rendezvous: serving a job of 1 ranks at tcp://127\\.0\\.0\\.1:\\d+, heartbeat "
                                + "timeout " + shown
                                + "\nrendezvous: the job failed: rank 0 did not join at .* within 1 s.*"),
                run.text());
    }

    @Test
    void withoutTheOptionItIsTheRanksDefault() throws IOException {
        assumeTrue(System.getenv("COLLECTIVES_HEARTBEAT_TIMEOUT") == null, "COLLECTIVES_HEARTBEAT_TIMEOUT is set");

        RunnerOutput run = serve();

        assertTrue(run.text().startsWith("rendezvous: serving a job of 1 ranks at tcp://127.0.0.1:"), run.text());
        assertTrue(run.text().contains(", heartbeat timeout 1.5 s\n"), run.text());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"soon", "0", "-2s", "PT"})
    void aHeartbeatTimeoutThatIsNoPositiveDurationIsABadCommandLine(String value) throws IOException {
        RunnerOutput run = serve("--heartbeat-timeout=" + value);

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertTrue(
                run.text()
                        .startsWith("error: --heartbeat-timeout takes a positive duration (6, 6s, 500ms, 2m, PT6S), "
                                + "not '" + value + "'"),
                run.text());
    }

    private RunnerOutput serve(String... options) throws IOException {
        Path tokenFile = Files.writeString(dir.resolve("token"), TOKEN);
        List<String> args = new ArrayList<>(List.of(
                "rendezvous",
                "--ranks",
                "1",
                "--port",
                Integer.toString(MultiProcessJobTest.freePort()),
                "--timeout",
                "1",
                "--token-file",
                tokenFile.toString()));
        args.addAll(List.of(options));
        return RunnerOutput.of(args.toArray(String[]::new));
    }
}
