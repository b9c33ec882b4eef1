package dev.collectives.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.Example;
import dev.collectives.examples.Examples;
import dev.collectives.examples.Runner;
import dev.collectives.examples.mistakes.Mistakes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The command line: help, the options every command shares, and what a bad command line gets. */
class ToolsOptionsTest {
    @Test
    void helpListsTheCommandsButNotTheRanksOfTheirJobs() {
        ToolsOutput run = ToolsOutput.of("--help");

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().startsWith("Usage: collectives "), run.text());
        for (String command : new String[] {
            "examples",
            "mistakes",
            "list",
            "join",
            "recovery",
            "rendezvous",
            "bench",
            "differential",
            "faults",
            "trace",
            "dump"
        }) {
            assertTrue(run.text().contains("\n  " + command + " "), command);
        }
        assertFalse(run.text().contains("differential-rank"), "a rank of the harness's jobs is not for users");
        assertFalse(run.text().contains("faults-rank"), "nor is a rank of the fault driver's");
    }

    @Test
    void theExamplesPageNamesEveryCommandAndEveryBenchmark() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "examples.md"));
        CommandLine tools = Tools.commandLine(System.out, Examples.all(), Mistakes.all());

        for (CommandLine command : tools.getSubcommands().values()) {
            if (!command.getCommandSpec().usageMessage().hidden()) {
                assertTrue(page.contains("`" + command.getCommandName()), command.getCommandName());
            }
        }
        for (String benchmark :
                tools.getSubcommands().get("bench").getSubcommands().keySet()) {
            assertTrue(page.contains("`bench " + benchmark + "`"), benchmark);
        }
    }

    /**
     * Each way {@code list} says to run the examples or the mistakes runs, with its first entry's name for NAME...
     * (the forms without a name are the same commands with none).
     */
    @Test
    void everyHintOfTheListRuns() {
        ToolsOutput list = ToolsOutput.of("list");
        Matcher hint = Pattern.compile(
                        "(?m)^(\\w+) \\(run them all with '(\\w+)', or some with '([^']+)'\\):\n  (\\S+)")
                .matcher(list.text());
        List<String> ran = new ArrayList<>();
        while (hint.find()) {
            assertEquals(hint.group(1), hint.group(2), list.text());
            String command = hint.group(3).replace("NAME...", hint.group(4));
            List<String> args = new ArrayList<>(List.of(command.split(" ")));
            args.addAll(List.of("--ranks", "2"));
            ToolsOutput run = ToolsOutput.of(args.toArray(String[]::new));
            assertEquals(Runner.PASSED, run.status(), command + ":\n" + run.text());
            assertTrue(run.text().contains(hint.group(4)), run.text());
            ran.add(hint.group(1));
        }
        assertEquals(List.of("examples", "mistakes"), ran, list.text());
    }

    @Test
    void everyCommandWordsItsHelpOptionAlike() {
        List<CommandLine> commands =
                new ArrayList<>(List.of(Tools.commandLine(System.out, Examples.all(), Mistakes.all())));
        for (int i = 0; i < commands.size(); i++) {
            CommandLine command = commands.get(i);
            commands.addAll(command.getSubcommands().values().stream()
                    .filter(c -> !c.getCommandSpec().usageMessage().hidden()) // a rank of a harness's jobs
                    .toList());
            String usage = command.getUsageMessage();
            assertTrue(usage.contains("  -h, --help") && usage.contains("show this help, and exit"), usage);
            assertFalse(usage.contains("Show this help message"), usage);
        }
        List<String> names = commands.stream().map(CommandLine::getCommandName).toList();
        assertTrue(
                names.containsAll(List.of("recovery", "trace", "bench", "memory", "fusion", "sim-allreduce")),
                names::toString);
    }

    @Test
    void withoutACommandItRunsTheExamples() {
        Example first = Examples.all().get(0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            status = Tools.run(new String[0], out, List.of(first), List.of());
        }
        String text = bytes.toString(StandardCharsets.UTF_8);

        assertEquals(Runner.PASSED, status, text);
        assertTrue(text.contains(first.name()), text);
    }

    @ParameterizedTest(name = "{0} --help")
    @CsvSource({
        "differential",
        "faults",
        "bench",
        "bench device",
        "bench overhead",
        "bench memory",
        "bench shapes",
        "bench fusion",
        "bench sim-allreduce",
        "bench rendezvous",
        "bench plot"
    })
    void everyCommandHasHelp(String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add("--help");
        ToolsOutput run = ToolsOutput.of(args.toArray(new String[0]));

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().startsWith("Usage: collectives " + command + " "), run.text());
    }

    @ParameterizedTest(name = "{0} --help")
    @CsvSource(
            delimiter = '|',
            value = {
                "differential   | sim          | 2,4,8",
                "faults         | sim          | 2,4,8",
                "bench device   | nccl         | 1",
                "bench fusion   | nccl         | 1",
                "bench overhead | nccl         | 1",
                "bench shapes   | nccl         | 1"
            })
    void backendAndRanksReadAlikeInEveryCommandWithItsOwnDefaults(String command, String backend, String ranks) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add("--help");
        String text = ToolsOutput.of(args.toArray(new String[0])).text().replaceAll("\\s+", " ");

        assertTrue(
                text.contains("--backend=NAME sim (embedded, no GPU), nccl or mccl; default: $COLLECTIVES_BACKEND, "
                        + "else " + backend + " "),
                text);
        assertTrue(
                text.contains("--ranks=N the ranks on this host (the command's description says whether threads "
                        + "or processes); comma-separated where a command runs at several counts in turn; default: "
                        + ranks + " "),
                text);
    }

    @Test
    void differentialRefusesFewerThanTwoRanksWithUsageStatus() {
        ToolsOutput run = ToolsOutput.of("differential", "--ranks", "1,2");

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertEquals(
                "error: --ranks needs counts of at least 2 and --devices at least 1",
                run.text().strip());
    }

    @Test
    void faultsHelpListsItsOptionsTheFaultsAndWhyTheCulpritIsNeverRankZero() {
        ToolsOutput run = ToolsOutput.of("faults", "--help");

        assertEquals(Runner.PASSED, run.status(), run.text());
        String text = run.text().replaceAll("\\s+", " ");
        for (String option : new String[] {
            "--backend=NAME",
            "--ranks=N",
            "--devices=G",
            "--modes=MODE[,MODE...]",
            "--faults=FAULT[,FAULT...]",
            "--out=DIR",
            "--job-timeout=SECONDS",
            "--sim-timeout=SECONDS",
            "--sync-timeout=SECONDS",
            "--help"
        }) {
            assertTrue(text.contains(" " + option + " "), option + " in:\n" + run.text());
        }
        for (String words : new String[] {
            "the culprit, rank N-1",
            "never rank 0: its process serves the rendezvous",
            "kill: the culprit halts its process",
            "abort: it calls comm.abort()",
            "silent: it stops calling",
            "shapes: it calls the step with n + 1 elements",
            "COLLECTIVES_CHECK=calls",
            "never speed",
            "0 every job failed as expected"
        }) {
            assertTrue(text.contains(words), words + " in:\n" + run.text());
        }
    }

    @Test
    void benchWithoutABenchmarkListsThemAndExitsWithUsageStatus() {
        ToolsOutput run = ToolsOutput.of("bench");

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertTrue(run.text().startsWith("error: name a benchmark"), run.text());
        for (String benchmark : new String[] {"device", "overhead", "memory", "shapes", "sim-allreduce", "plot"}) {
            assertTrue(run.text().contains("\n  " + benchmark + " "), benchmark);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "--bogus                 | Unknown option: '--bogus'",
                "faults --ranks 1,2      | --ranks needs counts of at least 2 and --devices at least 1",
                "faults --ranks 2,x      | --ranks needs a positive whole number, not 'x'",
                "faults --sim-timeout 0  | --job-timeout, --sim-timeout and --sync-timeout need at least 1 s",
                "faults --faults crash   | Invalid value for option '--faults' (FAULT): expected one of [KILL, ABORT, SILENT, "
                        + "SHAPES]",
                "faults --backend nosuch | unknown backend 'nosuch'",
                "bench device --backend=sim --ranks=2,4 | --ranks takes one count here, not '2,4'"
            })
    void badCommandLineExitsWithUsageStatus(String args, String message) {
        ToolsOutput run = ToolsOutput.of(args.trim().split(" +"));

        assertEquals(Runner.USAGE, run.status(), run.text());
        assertTrue(run.text().startsWith("error: " + message), run.text());
    }
}
