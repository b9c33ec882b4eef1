package dev.collectives.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code collectives} script as a user runs it from the repository's root after the build, with the JDK of
 * {@code JAVA_HOME}; where the build's jar is missing it refuses at once, saying how to build it. And
 * {@code gpu/recovery.sh} and {@code gpu/grow.sh} unstaged, as documented for a machine without a GPU.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class CommandLineScriptTest {
    @TempDir
    Path root;

    @Test
    void helpListsEveryCommand() throws Exception {
        BuiltLayout.at(root, true);
        ScriptOutput run = run(Map.of(), "./collectives", "--help");

        assertEquals(0, run.status(), run.text());
        assertTrue(run.text().startsWith("Usage: collectives [-hV] [COMMAND]\n"), run.text());
        for (String command : List.of(
                "examples",
                "mistakes",
                "list",
                "join",
                "recovery",
                "rendezvous",
                "bench",
                "differential",
                "faults",
                "trace")) {
            assertTrue(run.text().contains("\n  " + command + " "), command + " in:\n" + run.text());
        }
    }

    @Test
    void aSubcommandRunsThroughTheScript() throws Exception {
        BuiltLayout.at(root, true);
        ScriptOutput run = run(Map.of(), "./collectives", "mistakes", "--ranks", "2", "different-pipelines");

        assertEquals(0, run.status(), run.text());
        assertTrue(run.text().contains("[R14 SHAPE]"), run.text());
    }

    @Test
    void withoutTheBuildsJarItRefusesSayingHowToBuildIt() throws Exception {
        BuiltLayout.at(root, false);
        ScriptOutput run = run(Map.of(), "./collectives", "list");

        assertEquals(2, run.status(), run.text());
        assertEquals(
                "collectives: " + root.toRealPath() + "/tools/target/collectives/collectives.jar is missing: build it "
                        + "first, in " + root.toRealPath() + ": mvn -B -q install -DskipTests\n",
                run.text());
    }

    @Test
    void recoveryShOnSimRunsUnstagedFromTheBuildsJarsAndAJdk() throws Exception {
        BuiltLayout.at(root, true);
        ScriptOutput run = run(
                Map.of(
                        "REPLACE",
                        "1",
                        "BACKEND",
                        "sim",
                        "OUT",
                        root.resolve("out").toString()),
                "gpu/recovery.sh");

        assertEquals(0, run.status(), run.text());
        assertTrue(
                run.text()
                        .endsWith("recovery: 3/3 modes as expected (sim, 3 ranks, rank 1 killed and replaced,"
                                + " 100 steps after)\n"),
                run.text());
    }

    /** The runner's {@code recovery --grow} in whole jobs on sim: 2 processes grown to 3, and 2 to 4. */
    @Test
    void growShOnSimGrowsJobsOfTwoProcessesToThreeAndFour() throws Exception {
        BuiltLayout.at(root, true);
        ScriptOutput run = run(
                Map.of(
                        "BACKEND",
                        "sim",
                        "JOBS",
                        "2:3,2:4",
                        "MODES",
                        "GRAPH",
                        "STEPS",
                        "3",
                        "OUT",
                        root.resolve("out").toString()),
                "gpu/grow.sh");

        assertEquals(0, run.status(), run.text());
        assertTrue(run.text().contains("grow: GRAPH: 2 -> 4 ranks; rank 0 grown: rank 0 of 4 ("), run.text());
        assertTrue(run.text().contains("  phases: rank "), run.text());
        assertTrue(run.text().endsWith("grow: 2/2 jobs as expected (sim, jobs 2:3,2:4, 3 steps after)\n"), run.text());
    }

    @Test
    void recoveryShUnstagedWithoutTheBuildRefusesAtOnce() throws Exception {
        BuiltLayout.at(root, false);
        ScriptOutput run = run(Map.of("BACKEND", "sim"), "gpu/recovery.sh");

        assertEquals(2, run.status(), run.text());
        assertEquals(
                "recovery.sh: no jars: build them (in the repository: mvn -B -q install -DskipTests), stage them with"
                        + " gpu/stage.sh, or set CLASS_PATH\n",
                run.text());
    }

    private record ScriptOutput(int status, String text) {}

    /** Runs {@code command} with bash in the layout's root, with {@code JAVA_HOME} this JVM's, as a user would. */
    private ScriptOutput run(Map<String, String> variables, String... command)
            throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of("bash"));
        line.addAll(List.of(command));
        Path log = root.resolve("script.log");
        ProcessBuilder builder = new ProcessBuilder(line)
                .directory(root.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(k -> k.equals("JAVA") || k.equals("CLASS_PATH") || k.startsWith("COLLECTIVES_"));
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        environment.putAll(variables);
        int status = builder.start().waitFor();
        return new ScriptOutput(status, Files.readString(log, StandardCharsets.UTF_8));
    }
}
