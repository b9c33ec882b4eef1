package dev.collectives.tools.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.Runner;
import dev.collectives.examples.pipelines.Death;
import dev.collectives.tools.LocalJob;
import dev.collectives.tools.ToolsOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./collectives recovery --kill 1 --death kill} as three processes on sim, with the flight recorder's directory
 * set: rank 1 is killed, ranks 0 and 2 shrink it away and go on. Each communicator's records land in files of their
 * own, and {@code trace} tells the job's communicator, in which rank 1 died, from the survivors' recovered one.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TraceAfterRecoveryTest {
    private static final long JOB_NANOS = TimeUnit.MINUTES.toNanos(3);

    @TempDir
    Path out;

    @Test
    void theTraceNamesTheKilledRankInTheFailedCommunicatorAndShowsTheSurvivorsOneAsRecovered() throws Exception {
        Path records = out.resolve("records");
        long deadline = System.nanoTime() + JOB_NANOS;
        try (LocalJob job = LocalJob.start(
                new LocalJob.Placement("sim", 1, "trace-after-recovery"),
                3,
                List.of(),
                List.of("recovery", "--kill", "1", "--death", "kill", "--steps", "2"),
                this::log,
                (env, rank) -> env.put("COLLECTIVES_FLIGHT_RECORDER_DIR", records.toString()))) {
            while (Death.readyProcess(read(log(1))).isEmpty()) {
                assertTrue(System.nanoTime() < deadline && job.process(1).isAlive(), () -> read(log(1)));
                job.process(1).waitFor(50, TimeUnit.MILLISECONDS); // its log is a file another process writes
            }
            job.signal(1, "KILL");
            for (int survivor : new int[] {0, 2}) {
                assertEquals(
                        OptionalInt.of(Runner.PASSED), job.awaitExit(survivor, deadline), () -> read(log(survivor)));
            }
        }

        List<String> files;
        try (Stream<Path> listed = Files.list(records)) {
            files = listed.map(f -> f.getFileName().toString()).sorted().toList();
        }
        // ranks 0 and 2 of the job's communicator, ranks 0 and 1 of the shrunk one, each in a file of its own
        assertEquals(4, files.size(), files::toString);
        assertTrue(
                files.stream().allMatch(f -> f.matches("flight-[0-9a-f]{12}-c[0-9a-f]{10}-rank[012]\\.json")),
                files::toString);
        assertEquals(2, files.stream().map(f -> f.substring(0, 31)).distinct().count(), files::toString);

        // the runner logs in one line a record, as its output reads
        assertTrue(
                read(log(0))
                        .matches("(?s).*\n\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO dev\\.collectives\\.recovery: shrink: .*"),
                () -> read(log(0)));

        ToolsOutput trace = ToolsOutput.of("trace", records.toString());
        String text = trace.text();
        assertEquals(1, trace.status(), text);
        String job = text.substring(text.indexOf("(job ") + 5, text.indexOf("(job ") + 17);
        int failed = text.indexOf("communicator formed (job " + job + ", 3 ranks):\n"
                + "  failed; its survivors recovered as formed > shrunk #0 without rank 1\n"
                + "  rank 1 wrote no flight record and died: the survivors went on without it (shrunk #0 without"
                + " rank 1)\n");
        int recovered = text.indexOf("communicator formed > shrunk #0 without rank 1 (job " + job + ", 2 ranks):\n"
                + "  recovered from the failure of formed\n"
                + "  the ranks agree\n");
        assertTrue(failed >= 0, text);
        assertTrue(recovered > failed, text);
        assertTrue(text.substring(failed, recovered).matches("(?s).*\n  rank [02] failed in #\\d+ .*"), text);
        assertFalse(text.contains("never enqueued"), text);
    }

    private Path log(int rank) {
        return out.resolve("rank-" + rank + ".log");
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
