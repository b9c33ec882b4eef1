package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.fail;

import dev.collectives.runtime.Backends;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A JVM running {@link RankProcess} (or another main class) with a launcher's variables, its output collected line by line. */
final class ChildRank implements AutoCloseable {
    /** Variables a test runner may have inherited from a real launcher; a child must see only its own. */
    private static final List<String> LAUNCHER_PREFIXES = List.of("OMPI_", "PMI_", "SLURM_", "MPI_LOCAL");

    private static final List<String> LAUNCHER_NAMES = List.of(
            "RANK",
            "WORLD_SIZE",
            "LOCAL_RANK",
            "LOCAL_WORLD_SIZE",
            "MASTER_ADDR",
            "MASTER_PORT",
            "TORCHELASTIC_RUN_ID",
            "CUDA_VISIBLE_DEVICES",
            "MUSA_VISIBLE_DEVICES",
            Settings.JOB_TOKEN,
            "COLLECTIVES_BACKEND");
    private static final Pattern FAILED = Pattern.compile("FAILED after \\d+ ms: (.*)");

    private final String name;
    private final Process process;
    private final boolean echo;
    private final List<String> lines = new ArrayList<>();
    /** When each of {@link #lines} was read, in {@link System#nanoTime()}. */
    private final List<Long> arrivals = new ArrayList<>();

    private final Thread reader;

    private ChildRank(String name, Process process, boolean echo) {
        this.name = name;
        this.process = process;
        this.echo = echo;
        this.reader = new Thread(this::readOutput, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** A {@link RankProcess}. */
    static ChildRank start(String name, Map<String, String> variables, String... args) {
        return start(name, RankProcess.class, variables, args);
    }

    static ChildRank start(String name, Class<?> main, Map<String, String> variables, String... args) {
        return start(name, main, List.of(), variables, args);
    }

    /** {@code main} in a JVM that also gets {@code jvmOptions} (e.g. a small heap). */
    static ChildRank start(
            String name, Class<?> main, List<String> jvmOptions, Map<String, String> variables, String... args) {
        return start(List.of(), name, main, jvmOptions, variables, false, args);
    }

    /**
     * As above, the JVM started by {@code launcher} (none, or e.g. {@code ip netns exec NAME} to run it in a network
     * namespace of its own); with {@code echo}, each line the child prints is also printed here, after its name in
     * brackets.
     */
    static ChildRank start(
            List<String> launcher,
            String name,
            Class<?> main,
            List<String> jvmOptions,
            Map<String, String> variables,
            boolean echo,
            String... args) {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                Backends.NATIVE_ACCESS_OPTION));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath(main.getClassLoader()), main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        environment
                .keySet()
                .removeIf(k -> LAUNCHER_NAMES.contains(k)
                        || LAUNCHER_PREFIXES.stream().anyMatch(k::startsWith)
                        || Arrays.stream(Settings.Explicit.values()).anyMatch(s -> s.variable.equals(k)));
        environment.putAll(variables);
        try {
            return new ChildRank(name, builder.start(), echo);
        } catch (IOException e) {
            throw new AssertionError("cannot start " + command, e);
        }
    }

    /**
     * The class path this JVM runs the tests with: the entries of {@code loader} and its parents where they are URL
     * class loaders, then {@code java.class.path}. The JUnit console launcher, given {@code --class-path}, loads the
     * tests through a URL class loader of its own, and {@code java.class.path} names only the launcher's jar.
     */
    static String classPath(ClassLoader loader) {
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader) {
                for (URL url : ((URLClassLoader) l).getURLs()) {
                    try {
                        entries.add(Path.of(url.toURI()).toString());
                    } catch (URISyntaxException | IllegalArgumentException e) {
                        throw new AssertionError("not a file on the class path: " + url, e);
                    }
                }
            }
        }
        entries.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        return String.join(File.pathSeparator, entries);
    }

    private void readOutput() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (echo) {
                    System.out.println("[" + name + "] " + line);
                }
                synchronized (lines) {
                    lines.add(line);
                    arrivals.add(System.nanoTime());
                    lines.notifyAll();
                }
            }
        } catch (IOException ignored) {
            // the process was killed
        }
    }

    /** Waits for a line starting with {@code prefix} and returns it. */
    String await(String prefix, Duration limit) {
        long end = System.nanoTime() + limit.toNanos();
        synchronized (lines) {
            while (true) {
                for (String line : lines) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                long left = (end - System.nanoTime()) / 1_000_000;
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    fail(name + " printed no line starting with '" + prefix + "' within " + limit + "; output: "
                            + lines);
                }
                try {
                    lines.wait(Math.max(1, Math.min(left, 100)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** When the first line starting with {@code prefix} was read, in {@link System#nanoTime()}; it was awaited. */
    long arrivalOf(String prefix) {
        synchronized (lines) {
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith(prefix)) {
                    return arrivals.get(i);
                }
            }
        }
        throw new AssertionError(name + " printed no line starting with '" + prefix + "'");
    }

    /** Waits for the process to end with a failure and returns its message (how long it took is its own business). */
    String failure() {
        Matcher m = FAILED.matcher(await("FAILED", Duration.ofSeconds(60)));
        if (!m.matches()) {
            fail(name + ": unexpected output " + lines);
        }
        awaitExit(3);
        return m.group(1);
    }

    void awaitExit(int expected) {
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                fail(name + " did not exit; output: " + lines);
            }
            reader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        if (process.exitValue() != expected) {
            fail(name + " exited with " + process.exitValue() + ", expected " + expected + "; output: " + lines);
        }
    }

    /** Completes when the process has ended. */
    CompletableFuture<Process> onExit() {
        return process.onExit();
    }

    /** The exit status of the ended process. */
    int exitValue() {
        return process.exitValue();
    }

    /** Its last {@code count} lines so far. */
    List<String> lastLines(int count) {
        synchronized (lines) {
            return List.copyOf(lines.subList(Math.max(0, lines.size() - count), lines.size()));
        }
    }

    void kill() {
        process.destroyForcibly();
    }

    /** Sends the process {@code signal} ("STOP", "CONT") with {@code kill}, as an operator would. */
    void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (kill.waitFor() != 0) {
                fail("kill -" + signal + " " + process.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run kill", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
