package dev.collectives.tools.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.JobDump;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.tools.LocalJob;
import dev.collectives.tools.ToolsOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sim job of three processes hangs (rank 2 never calls step 3, the others wait in it); a dump asked of its
 * rendezvous has every rank write its record now, and {@code trace} on them names the rank that never enqueued.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DumpOnDemandTest {
    private static final long JOB_NANOS = TimeUnit.MINUTES.toNanos(3);

    @TempDir
    Path out;

    @Test
    void aDumpOfAHungJobHasEveryRankWriteItsRecordAndTraceNamesTheRankThatNeverEnqueued() throws Exception {
        Path records = out.resolve("records");
        long deadline = System.nanoTime() + JOB_NANOS;
        try (LocalJob job = LocalJob.start(
                new LocalJob.Placement("sim", 1, "dump-on-demand"),
                3,
                List.of(),
                List.of("faults-rank", "--mode", "NONE", "--fault", "silent"),
                this::log,
                (env, rank) -> env.put("COLLECTIVES_SIM_TIMEOUT", "300s"))) {
            while (!read(log(2)).contains("rank 2 does not call step 3")) {
                assertTrue(System.nanoTime() < deadline && job.process(2).isAlive(), () -> read(log(2)));
                job.process(2).waitFor(50, TimeUnit.MILLISECONDS); // its log is a file another process writes
            }
            RendezvousEndpoint endpoint = RendezvousEndpoint.parse(job.rendezvous());

            BootstrapException refused = assertThrows(
                    BootstrapException.class,
                    () -> JobDump.ask(
                            endpoint,
                            "not-the-job-token-at-all-0123456789",
                            Optional.of(records),
                            Duration.ofMinutes(1)));
            assertTrue(
                    refused.getMessage().contains("turned a request for the ranks' records away"), refused::getMessage);
            assertTrue(refused.getMessage().contains("presented a wrong job token"), refused::getMessage);

            List<JobDump.Answer> answers =
                    JobDump.ask(endpoint, job.token(), Optional.of(records), Duration.ofMinutes(1));
            assertEquals(3, answers.size(), answers::toString);
            for (JobDump.Answer answer : answers) {
                assertEquals(JobDump.Outcome.WROTE, answer.outcome(), answers::toString);
                assertEquals(1, answer.files().size(), answers::toString);
                Path file = answer.files().get(0);
                assertTrue(file.startsWith(records), answers::toString);
                assertTrue(
                        file.getFileName().toString().endsWith("-rank" + answer.rank() + ".json"), answers::toString);
                assertTrue(Files.readString(file).contains("\"asked\""), file::toString);
                assertTrue(
                        answer.toString().startsWith("rank " + answer.rank() + " wrote " + records), answer::toString);
            }

            ToolsOutput trace = ToolsOutput.of("trace", records.toString());
            assertEquals(1, trace.status(), trace.text());
            assertTrue(
                    trace.text()
                            .matches(
                                    "(?s).*\n  rank 2 never enqueued #\\d+ [^\n]*; ranks 0, 1 enqueued it and wait in it\n.*"),
                    trace.text());
        }
    }

    @Test
    void theCommandSaysWhereTheTokenComesFromWhenItIsNotSet() {
        ToolsOutput dump = ToolsOutput.of("dump", "tcp://127.0.0.1:1");
        assertEquals(2, dump.status(), dump.text());
        assertTrue(dump.text().startsWith("error: "), dump.text());
        assertTrue(dump.text().contains("COLLECTIVES_JOB_TOKEN"), dump.text());
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
