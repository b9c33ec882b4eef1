package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.mistakes.Mistakes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The runner's command line: help, list, and what a bad one or an unavailable backend gets. */
class RunnerOptionsTest {
    @Test
    void helpPrintsUsageAndSucceeds() {
        RunnerOutput run = RunnerOutput.of("--help");

        assertEquals(Runner.PASSED, run.status());
        assertTrue(run.text().startsWith("usage: Runner [--backend NAME] [--ranks N]"), run.text());
        for (String option : new String[] {"--backend", "--ranks", "--example", "--mistakes", "--list", "--help"}) {
            assertTrue(run.text().contains("  " + option), option);
        }
    }

    @Test
    void listNamesEveryExampleAndMistakeWithoutRunningAnything() {
        RunnerOutput run = RunnerOutput.of("--list");

        assertEquals(Runner.PASSED, run.status());
        Examples.all().forEach(e -> assertTrue(run.text().contains("  " + e.name() + " "), e.name()));
        Mistakes.all().forEach(m -> assertTrue(run.text().contains("  " + m.name() + " "), m.name()));
        Mistakes.all().forEach(m -> assertTrue(run.text().contains("caught as " + m.rule().tag()), m.name()));
        assertTrue(run.text().contains("ring") && run.text().contains("[needs at least 2 ranks]"), run.text());
        assertTrue(!run.text().contains("check:"), run.text());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--bogus               | unknown option '--bogus'",
        "--ranks 0             | --ranks needs a positive whole number, not '0'",
        "--ranks four          | --ranks needs a positive whole number, not 'four'",
        "--ranks               | --ranks needs a value",
        "--example             | --example needs a value",
        "--backend sim --example nosuch | no example is called 'nosuch'; the examples are: seed-graph, seed-local",
        "--backend sim --mistakes --example seed-graph | no mistake is called 'seed-graph'; the mistakes are: "
            + "different-pipelines"})
    void badCommandLineExitsWithUsageStatus(String args, String message) {
        RunnerOutput run = RunnerOutput.of(args.trim().split(" +"));

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertTrue(run.text().startsWith("error: " + message), run.text());
    }

    @Test
    void unknownBackendIsNamedWithTheAvailableOnes() {
        RunnerOutput run = RunnerOutput.of("--backend", "nosuch");

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertTrue(run.text().startsWith("error: unknown backend 'nosuch'"), run.text());
        assertTrue(run.text().contains("available: sim"), run.text());
    }

    @Test
    void unavailableBackendSaysWhatIsMissing() {
        RunnerOutput run = RunnerOutput.of("--backend", UnavailableTestBackend.NAME);

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertTrue(run.text().startsWith("error: backend '" + UnavailableTestBackend.NAME + "' is unavailable: "
                + UnavailableTestBackend.REASON), run.text());
        assertTrue(!run.text().contains("== "), "no example ran: " + run.text());
    }
}
