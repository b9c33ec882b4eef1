package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.mistakes.Mistakes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The runner's command line: help, list, subcommands, and what a bad one or an unavailable backend gets. */
class RunnerOptionsTest {
    @Test
    void helpPrintsUsageAndSucceeds() {
        RunnerOutput run = RunnerOutput.of("--help");

        assertEquals(Runner.PASSED, run.status());
        assertTrue(run.text().startsWith("Usage: runner "), run.text());
        for (String option : new String[] {
            "--backend=NAME", "--ranks=N", "--example=NAME", "--mistakes", "--list", "--help", "--version"
        }) {
            assertTrue(run.text().contains(" " + option + " "), option);
        }
        for (String command : new String[] {"examples", "mistakes", "join", "recovery", "list"}) {
            assertTrue(run.text().contains("\n  " + command + " "), command);
        }
        assertTrue(
                run.text()
                        .contains("Exit status:\n  0   every example (or mistake) passed or was skipped\n"
                                + "  1   one failed\n  2   a bad command line, or an unavailable backend"),
                run.text());
    }

    @Test
    void theExamplesPageNamesEverySubcommand() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "examples.md"));
        CommandLine runner = Commands.commandLine(System.out, Examples.all(), Mistakes.all());

        for (CommandLine command : runner.getSubcommands().values()) {
            if (!command.getCommandSpec().usageMessage().hidden()) {
                assertTrue(page.contains("`" + command.getCommandName()), command.getCommandName());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"-V", "--version"})
    void versionPrintsTheProjectsVersionAndSucceeds(String option) {
        RunnerOutput run = RunnerOutput.of(option);

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().matches("Collectives \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n"), run.text());
    }

    @ParameterizedTest(name = "{0} --help")
    @CsvSource({"examples", "mistakes", "join", "recovery", "rendezvous", "list"})
    void everySubcommandHasHelp(String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add("--help");
        RunnerOutput run = RunnerOutput.of(args.toArray(new String[0]));

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().startsWith("Usage: runner " + command + " "), run.text());
    }

    @Test
    void optionsTakeTheirValueAfterAnEqualsSignOrAsTheNextArgument() {
        RunnerOutput spaced = RunnerOutput.of("--backend", "sim", "--ranks", "2", "--example", "ring");
        RunnerOutput joined = RunnerOutput.of("--backend=sim", "--ranks=2", "--example=ring");

        assertEquals(Runner.PASSED, joined.status(), joined.text());
        assertTrue(joined.text().startsWith("Collectives examples on sim, 2 rank(s)"), joined.text());
        assertTrue(joined.text().contains("examples: 1 passed, 0 skipped, 0 failed"), joined.text());
        assertEquals(spaced.text().replaceAll("time: .*", ""), joined.text().replaceAll("time: .*", ""));
    }

    @Test
    void subcommandsRunTheNamedExamplesAndMistakes() {
        RunnerOutput examples = RunnerOutput.of("examples", "--ranks=2", "ring");
        RunnerOutput mistakes = RunnerOutput.of("mistakes", "--ranks", "2", "different-pipelines");

        assertEquals(Runner.PASSED, examples.status(), examples.text());
        assertTrue(examples.text().contains("== ring: "), examples.text());
        assertTrue(examples.text().contains("examples: 1 passed, 0 skipped, 0 failed"), examples.text());
        assertEquals(Runner.PASSED, mistakes.status(), mistakes.text());
        assertTrue(mistakes.text().contains("mistakes: 1 passed, 0 skipped, 0 failed"), mistakes.text());
    }

    @Test
    void listNamesEveryExampleAndMistakeWithoutRunningAnything() {
        RunnerOutput run = RunnerOutput.of("--list");

        assertEquals(Runner.PASSED, run.status());
        Examples.all().forEach(e -> assertTrue(run.text().contains("  " + e.name() + " "), e.name()));
        Mistakes.all().forEach(m -> assertTrue(run.text().contains("  " + m.name() + " "), m.name()));
        Mistakes.all()
                .forEach(m ->
                        assertTrue(run.text().contains("caught as " + m.rule().tag()), m.name()));
        assertTrue(run.text().contains("ring") && run.text().contains("[needs at least 2 ranks]"), run.text());
        assertTrue(!run.text().contains("check:"), run.text());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "--bogus               | Unknown option: '--bogus'",
                "--ranks 0             | --ranks needs a positive whole number, not '0'",
                "--ranks=-1            | --ranks needs a positive whole number, not '-1'",
                "--ranks four          | --ranks needs a positive whole number, not 'four'",
                "--ranks               | Missing required parameter for option '--ranks' (N)",
                "--example             | Missing required parameter for option '--example' (NAME)",
                "examples --bogus      | Unknown option: '--bogus'",
                "--backend sim examples nosuch | no example is called 'nosuch'; the examples are: seed-graph, seed-local",
                "--backend sim --example nosuch | no example is called 'nosuch'; the examples are: seed-graph, seed-local",
                "--backend sim --mistakes --example seed-graph | no mistake is called 'seed-graph'; the mistakes are: "
                        + "different-pipelines",
                "join nosuch           | no example is called 'nosuch'; the examples are: seed-graph, seed-local",
                "join --mistakes seed-graph | no mistake is called 'seed-graph'; the mistakes are: different-pipelines",
                "join --ranks 2        | Unknown option: '--ranks'",
                "recovery --kill 0     | --kill needs a rank other than 0 where rank 0 serves the rendezvous (when it dies",
                "--ranks 2,4           | --ranks takes one count here, not '2,4'"
            })
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
        assertTrue(
                run.text()
                        .startsWith("error: backend '" + UnavailableTestBackend.NAME + "' is unavailable: "
                                + UnavailableTestBackend.REASON),
                run.text());
        assertTrue(!run.text().contains("== "), "no example ran: " + run.text());
    }
}
