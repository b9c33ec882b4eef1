package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.fail;

import dev.collectives.runtime.Backends;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One JVM of a multi-process test job: a main class (the runner, or a fixture wrapping it) as one rank, seeing,
 * of the variables that choose a job, a backend or a rule's opt-in, only those the test gives it. Its output, the
 * errors too, goes to a file.
 */
final class RankJvm implements AutoCloseable {
    /** What the test runner may have inherited from a launcher or a shell; a rank must see only its own. */
    private static final List<String> INHERITED_PREFIXES =
            List.of("COLLECTIVES_", "OMPI_", "PMI_", "SLURM_", "MPI_LOCAL", "TORCHELASTIC_");

    private static final List<String> INHERITED_NAMES = List.of(
            "RANK",
            "WORLD_SIZE",
            "LOCAL_RANK",
            "LOCAL_WORLD_SIZE",
            "MASTER_ADDR",
            "MASTER_PORT",
            "CUDA_VISIBLE_DEVICES",
            "MUSA_VISIBLE_DEVICES",
            "MCCL_LEGACY_MUSA_REGISTER",
            "NCCL_LEGACY_CUDA_REGISTER");

    private final String name;
    private final Process process;
    private final Path log;
    private final long startNanos = System.nanoTime();

    private RankJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code main} with {@code args}; returns at once, the JVM starting in the background. */
    static RankJvm start(String name, Path log, Class<?> main, Map<String, String> variables, List<String> args) {
        // a quick start matters more than peak speed: several of these share two cores
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xshare:auto",
                Backends.NATIVE_ACCESS_OPTION,
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(args);
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment()
                .keySet()
                .removeIf(k -> INHERITED_NAMES.contains(k)
                        || INHERITED_PREFIXES.stream().anyMatch(k::startsWith));
        builder.environment().putAll(variables);
        try {
            return new RankJvm(name, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Waits for a line of output starting with {@code prefix}; fails if the JVM ends or {@code limit} passes. */
    void awaitLine(String prefix, Duration limit) {
        long end = System.nanoTime() + limit.toNanos();
        try {
            while (!hasLine(prefix)) {
                boolean exited = process.waitFor(50, TimeUnit.MILLISECONDS);
                if ((exited || System.nanoTime() > end) && !hasLine(prefix)) {
                    fail(name + " printed no line starting with '" + prefix + "' within " + limit + "; output:\n"
                            + output());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private boolean hasLine(String prefix) {
        return output().lines().anyMatch(line -> line.startsWith(prefix));
    }

    /** Waits for the JVM to exit, failing the test if it takes longer than {@code limit}. */
    Finished await(Duration limit) {
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                fail(name + " did not exit within " + limit + "; output:\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return new Finished(name, process.exitValue(), output(), Duration.ofNanos(System.nanoTime() - startNanos));
    }

    private String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }

    /**
     * A JVM that exited.
     *
     * @param name   the rank it was, for messages
     * @param status its exit status
     * @param output what it printed
     * @param took   from its start to its exit, as seen by the test
     */
    record Finished(String name, int status, String output, Duration took) {
        @Override
        public String toString() {
            return name + " exited with " + status + " after " + took.toMillis() + " ms; output:\n" + output;
        }
    }
}
