package dev.collectives.examples;

import dev.collectives.runtime.Backends;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The processes that {@code recovery --grow} starts from rank 0's process to join its running job: each this Java, on
 * this class path, running the runner's {@code recovery} with the arguments given, in this process's environment
 * without its place in the job (no rank, world size or local place: the job's rendezvous gives a process that joins
 * its rank) and with {@code COLLECTIVES_JOINING=1}. Each prints into this process's output, its lines prefixed with
 * "joiner N: ". Closing waits for each to end (up to the limit given) and stops those still running.
 */
final class JoiningProcesses implements AutoCloseable {
    /** The variables of this process's place in its job, which a process that joins does not take over. */
    private static final List<String> PLACE = List.of(
            "COLLECTIVES_RANK",
            "COLLECTIVES_WORLD_SIZE",
            "COLLECTIVES_LOCAL_RANK",
            "COLLECTIVES_LOCAL_SIZE",
            "COLLECTIVES_REPLACEMENT");

    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> copiers = new ArrayList<>();

    /** Starts {@code count} processes that join, each running {@code recovery} with {@code arguments}. */
    JoiningProcesses(int count, List<String> arguments, PrintStream out) {
        for (int j = 1; j <= count; j++) {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), Backends.NATIVE_ACCESS_OPTION));
            System.getProperties().stringPropertyNames().stream()
                    .filter(k -> k.startsWith("collectives."))
                    .sorted()
                    .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), Runner.class.getName(), "recovery"));
            command.addAll(arguments);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            Map<String, String> environment = builder.environment();
            PLACE.forEach(environment::remove);
            environment.put("COLLECTIVES_JOINING", "1");
            // NCCL tells the processes sharing a GPU apart by their host ids, where the launcher gave them one each
            String hostId = environment.get("NCCL_HOSTID");
            if (hostId != null) {
                environment.put("NCCL_HOSTID", hostId + "-joiner-" + j);
            }
            Process process;
            try {
                process = builder.start();
            } catch (IOException e) {
                close();
                throw new UncheckedIOException("cannot start a process that joins: " + e.getMessage(), e);
            }
            processes.add(process);
            String prefix = "joiner " + j + ": ";
            Thread copier = new Thread(() -> copy(process, prefix, out), "collectives-joiner-" + j + "-output");
            copier.setDaemon(true);
            copier.start();
            copiers.add(copier);
        }
    }

    private static void copy(Process process, String prefix, PrintStream out) {
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                synchronized (out) {
                    out.println(prefix + line);
                    out.flush();
                }
            }
        } catch (IOException ended) {
            // the process is gone; its exit status says how it ended
        }
    }

    /**
     * Waits up to {@code limitSeconds} for every process to end; returns the first non-zero exit status (one still
     * running is stopped and counts as 1), or 0.
     */
    int awaitExit(long limitSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSeconds);
        int status = 0;
        for (Process process : processes) {
            long left = Math.max(0, deadline - System.nanoTime());
            int exit = process.waitFor(left, TimeUnit.NANOSECONDS) ? process.exitValue() : 1;
            status = status != 0 ? status : exit;
        }
        for (Thread copier : copiers) {
            copier.join(TimeUnit.SECONDS.toMillis(5));
        }
        return status;
    }

    /** Stops the processes still running. */
    @Override
    public void close() {
        processes.forEach(Process::destroyForcibly);
    }
}
