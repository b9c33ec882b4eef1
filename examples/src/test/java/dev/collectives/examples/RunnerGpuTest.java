package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The runner on a real library: {@code COLLECTIVES_BACKEND} (default {@code nccl}) with
 * {@code -Dcollectives.examples.ranks} GPUs (default 2). Every example must pass or be skipped for hardware the
 * machine lacks, and every mistake must be caught. The runs are printed, for the GPU logs.
 */
@Tag("gpu")
class RunnerGpuTest {
    private static final String BACKEND = System.getenv().getOrDefault("COLLECTIVES_BACKEND", "nccl");
    private static final String RANKS = String.valueOf(Integer.getInteger("collectives.examples.ranks", 2));

    @Test
    void everyExamplePassesOrIsSkipped() {
        RunnerOutput run = RunnerOutput.of("--backend", BACKEND, "--ranks", RANKS);
        System.out.println(run.text());

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().contains(" 0 failed"), run.text());
    }

    @Test
    void everyMistakeIsCaught() {
        RunnerOutput run = RunnerOutput.of("--backend", BACKEND, "--ranks", RANKS, "--mistakes");
        System.out.println(run.text());

        assertEquals(Runner.PASSED, run.status(), run.text());
    }
}
