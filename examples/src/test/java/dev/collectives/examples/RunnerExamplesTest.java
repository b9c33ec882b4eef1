package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every example through the runner, in-process, on sim at 1, 2, 4 and 8 ranks. */
class RunnerExamplesTest {
    static Stream<Arguments> examplesAndRanks() {
        return Examples.all().stream()
                .flatMap(example -> Stream.of(1, 2, 4, 8).map(ranks -> Arguments.of(example.name(), ranks)));
    }

    @ParameterizedTest(name = "{0} at {1} rank(s)")
    @MethodSource("examplesAndRanks")
    void exampleRunsAndChecksOrIsSkippedBelowItsMinimum(String name, int ranks) {
        Example example = Examples.all().stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .orElseThrow();
        RunnerOutput run = RunnerOutput.of("--backend", "sim", "--ranks", String.valueOf(ranks), "--example", name);

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().contains("== " + name + ": " + example.summary()), run.text());
        if (ranks < example.minRanks()) {
            assertTrue(
                    run.text()
                            .contains(
                                    "SKIPPED: needs at least " + example.minRanks() + " ranks (running " + ranks + ")"),
                    run.text());
            assertTrue(run.text().contains("examples: 0 passed, 1 skipped, 0 failed"), run.text());
            assertFalse(run.text().contains("check:"), run.text());
        } else {
            assertTrue(run.text().contains("check: OK on all " + ranks + " rank(s)"), run.text());
            assertTrue(run.text().contains("examples: 1 passed, 0 skipped, 0 failed"), run.text());
            assertTrue(run.text().matches("(?s).*\ntime: \\d+\\.\\d ms\n.*"), run.text());
            // the describe() table comes between the heading and the check, indented
            String afterHeading = run.text().substring(run.text().indexOf("== " + name));
            String table = afterHeading.substring(afterHeading.indexOf('\n') + 1, afterHeading.indexOf("check:"));
            assertFalse(table.isBlank(), run.text());
            assertTrue(table.lines().allMatch(line -> line.startsWith("  ")), table);
            assertTrue(
                    table.contains(REGISTRATION_PATHS.get(name)),
                    "the table shows the example's registration path " + REGISTRATION_PATHS.get(name) + ": " + table);
        }
    }

    /** What each example is there to show, as its describe() table words it. */
    private static final Map<String, String> REGISTRATION_PATHS = Map.ofEntries(
            Map.entry("seed-graph", "(GRAPH registration)"),
            Map.entry("seed-local", "(LOCAL registration)"),
            Map.entry("seed-arena", "(LOCAL registration)"),
            Map.entry("ib-sharp", "IB SHARP"),
            Map.entry("mtlink-sharp", "MTLink SHARP"),
            Map.entry("legacy-general", "general"),
            Map.entry("symmetric-window", "window shared (symmetric)"),
            Map.entry("custom-allocator", "general"),
            Map.entry("ring", "none"),
            Map.entry("parameter-server", "scatter"),
            Map.entry(
                    "framework-interop",
                    "external gradients: foreign, legacy {cuda,musa}Malloc, 0 bytes from its allocation's head"),
            Map.entry("gradient-buckets", "graph cache of bucket()"),
            Map.entry("hybrid-parallel", "DataParallelGradients (GRAPH registration)"));

    @Test
    void everyExampleHasAnExpectedRegistrationPath() {
        Examples.all().forEach(e -> assertTrue(REGISTRATION_PATHS.containsKey(e.name()), e.name()));
    }

    @Test
    void theDefaultRunRunsEveryExampleAtFourRanksAndSkipsThoseThatNeedMore() {
        RunnerOutput run = RunnerOutput.of("--backend", "sim");

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().startsWith("Collectives examples on sim, 4 rank(s)"), run.text());
        for (Example example : Examples.all()) {
            assertTrue(run.text().contains("== " + example.name() + ": "), example.name());
        }
        long needMore = Examples.all().stream().filter(e -> e.minRanks() > 4).count();
        assertTrue(
                run.text()
                        .contains("examples: " + (Examples.all().size() - needMore) + " passed, " + needMore
                                + " skipped, 0 failed"),
                run.text());
    }
}
