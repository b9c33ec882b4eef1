package dev.collectives.tools;

import dev.collectives.examples.Runner;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.RendezvousServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;
import java.util.stream.Collectors;

/**
 * The processes of one multi-process job on this host, one per rank, each a hidden command of {@link Tools}, as the
 * harnesses ({@code differential}, {@code faults}) start them: this Java and class path, the job's place of each
 * rank in {@code COLLECTIVES_*} variables, a tcp rendezvous on a free loopback port and a fresh job token. Closing
 * it stops those still running.
 * <p>Where there are more ranks than GPUs, several processes share a GPU, each with its own {@code NCCL_HOSTID}, so
 * that NCCL takes them for separate hosts and connects them through its socket transport ({@code
 * NCCL_SOCKET_IFNAME=lo} unless set). That is a setup for testing behaviour only: the GPU is time-sliced and the
 * ranks talk over sockets.
 */
public final class LocalJob implements AutoCloseable {
    private static final String SIM = "sim";
    /**
     * How long a process may take to say it joins its job: a JVM's start on a busy host, not the job's work. A process
     * that exits before, or is silent past it, did not start (a wrong class path, a bad JVM option).
     */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** How much of a log a failure to start shows: its last lines. */
    private static final int LOG_TAIL_LINES = 8;
    /** How often a process that has not said it joins is looked at. */
    private static final Duration LOOK_EVERY = Duration.ofMillis(50);
    /** How long {@link #close()} waits for each stopped process to end. */
    private static final long STOP_WAIT_SECONDS = 10;
    /** Variables of launchers and of an enclosing job that must not reach the ranks started here. */
    private static final List<String> INHERITED_PREFIXES =
            List.of("COLLECTIVES_SIM_", "OMPI_", "PMI_", "SLURM_", "MPI_LOCAL", "TORCHELASTIC_");

    private static final List<String> INHERITED_NAMES = List.of(
            "RANK",
            "WORLD_SIZE",
            "LOCAL_RANK",
            "LOCAL_WORLD_SIZE",
            "MASTER_ADDR",
            "MASTER_PORT",
            "COLLECTIVES_BOOTSTRAP_TIMEOUT");

    /** A process of the job did not start: the message says which, how it ended and the end of its log. */
    public static final class NotStarted extends RuntimeException {
        NotStarted(String message) {
            super(message);
        }
    }

    /**
     * Where a job's ranks run.
     *
     * @param backend  the backend every rank joins on
     * @param devices  the GPUs the processes share, round-robin
     * @param hostName what each process's {@code NCCL_HOSTID} starts with, before {@code -rank-R}
     */
    public record Placement(String backend, int devices, String hostName) {}

    private final List<Process> processes;
    /** The number of ranks. */
    private final int size;

    private final Placement placement;
    private final List<String> command;
    private final String rendezvous;
    private final String token;

    private LocalJob(
            int size,
            List<Process> processes,
            Placement placement,
            List<String> command,
            String rendezvous,
            String token) {
        this.size = size;
        this.processes = processes;
        this.placement = placement;
        this.command = command;
        this.rendezvous = rendezvous;
        this.token = token;
    }

    /**
     * Starts {@code size} processes of {@link Tools}, each running {@code toolArguments} (a command and its
     * options) with the JVM options {@code jvmOptions}, its output, the errors too, going to {@code log.apply(rank)};
     * {@code environment} then adds to, or removes from, each rank's variables what its job needs. Returns once
     * every process said it joins the job.
     *
     * @throws UncheckedIOException when a process cannot be started (those started are stopped)
     * @throws NotStarted           when a process exits, or stays silent for {@link #START_TIMEOUT}, before it says
     *     it joins (those started are stopped)
     */
    public static LocalJob start(
            Placement placement,
            int size,
            List<String> jvmOptions,
            List<String> toolArguments,
            IntFunction<Path> log,
            ObjIntConsumer<Map<String, String>> environment) {
        String rendezvous = "tcp://127.0.0.1:" + freePort();
        String token = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        List<String> command = command(jvmOptions, toolArguments);
        LocalJob job = new LocalJob(size, new ArrayList<>(), placement, command, rendezvous, token);
        try {
            for (int r = 0; r < size; r++) {
                int rank = r;
                job.processes.add(
                        job.startRank(rank, log.apply(rank), variables -> environment.accept(variables, rank)));
            }
            for (int r = 0; r < size; r++) {
                job.awaitStarted(r, "rank " + r, log.apply(r));
            }
        } catch (IOException e) {
            job.close();
            throw new UncheckedIOException("cannot start the processes of a job of " + size + " ranks", e);
        } catch (InterruptedException e) {
            job.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the job's processes started", e);
        } catch (RuntimeException e) {
            job.close();
            throw e;
        }
        return job;
    }

    /**
     * Starts a process in the place of rank {@code rank}, which died: as the job's ranks, with
     * {@code COLLECTIVES_REPLACEMENT=1} and what {@code environment} adds; it is stopped with the others, and its
     * exit is awaited as theirs, under the number this returns.
     *
     * @return its number among this job's processes, past the ranks'
     * @throws UncheckedIOException when it cannot be started
     * @throws NotStarted           when it exits, or stays silent for {@link #START_TIMEOUT}, before it says it joins
     */
    public int startReplacement(int rank, Path log, Consumer<Map<String, String>> environment)
            throws InterruptedException {
        try {
            processes.add(startRank(rank, log, variables -> {
                environment.accept(variables);
                variables.put("COLLECTIVES_REPLACEMENT", "1");
            }));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the replacement of rank " + rank, e);
        }
        int process = processes.size() - 1;
        awaitStarted(process, "the replacement of rank " + rank, log);
        return process;
    }

    /**
     * Waits until process {@code process} said it joins its job ({@link Runner#JOINING}, the first line of every rank
     * command), which it writes into {@code log}.
     *
     * @throws NotStarted when it exited before, or is still silent after {@link #START_TIMEOUT}
     */
    private void awaitStarted(int process, String who, Path log) throws InterruptedException {
        Process started = processes.get(process);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!saysItJoins(log)) {
            if (!started.isAlive()) {
                if (saysItJoins(log)) {
                    return;
                }
                throw new NotStarted(
                        who + " did not start: it exited with status " + started.exitValue() + logEnd(log));
            }
            if (System.nanoTime() > deadline) {
                throw new NotStarted(who + " did not start: it said nothing of joining in " + START_TIMEOUT.toSeconds()
                        + " s" + logEnd(log));
            }
            started.waitFor(LOOK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static boolean saysItJoins(Path log) {
        return read(log).lines().anyMatch(line -> line.startsWith(Runner.JOINING));
    }

    /**
     * "; the end of its log (FILE):" and the log's last lines, each indented, or that the log is empty: what a process
     * that failed said of why.
     */
    public static String logEnd(Path log) {
        List<String> lines = read(log).lines().toList();
        if (lines.isEmpty()) {
            return "; its log is empty (" + log + ")";
        }
        return "; the end of its log (" + log + "):"
                + lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()).stream()
                        .map(line -> "\n    " + line)
                        .collect(Collectors.joining());
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
    }

    private Process startRank(int rank, Path log, Consumer<Map<String, String>> environment) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> variables = builder.environment();
        place(variables, placement, size, rank, rendezvous, token);
        environment.accept(variables);
        return builder.start();
    }

    /**
     * Serves this job's rendezvous in this process, as a {@link RendezvousServer} (each operation within the
     * bootstrap timeout's default), which declares dead a member silent for {@code heartbeatTimeout}: the ranks must
     * join it ({@code COLLECTIVES_RENDEZVOUS_SERVER=standalone}).
     */
    public RendezvousServer serveRendezvous(Duration heartbeatTimeout) {
        return RendezvousServer.start(
                RendezvousEndpoint.parse(rendezvous), size, token, RendezvousServer.DEFAULT_TIMEOUT, heartbeatTimeout);
    }

    /** Where its ranks meet: "tcp://127.0.0.1:port". */
    public String rendezvous() {
        return rendezvous;
    }

    /** The job's token, which its ranks prove they hold (and a request for their records too). */
    public String token() {
        return token;
    }

    /** The process of {@code rank} (or of a replacement, by its number). */
    public Process process(int rank) {
        return processes.get(rank);
    }

    /**
     * Sends the process of {@code rank} (or of a replacement, by its number) {@code signal} ("KILL", "STOP", "CONT"),
     * as an operator's {@code kill} does. Through the command {@code kill}: {@link ProcessHandle} can end a process
     * but cannot stop or resume one.
     */
    public void signal(int rank, String signal) throws InterruptedException {
        long pid = processes.get(rank).pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid))
                    .redirectErrorStream(true)
                    .start();
            String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + said.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " " + pid, e);
        }
    }

    /**
     * Waits until {@code deadlineNanos} (of {@link System#nanoTime()}) for the process of {@code rank} to exit.
     *
     * @return its exit status; empty when it still runs at the deadline
     */
    public OptionalInt awaitExit(int rank, long deadlineNanos) throws InterruptedException {
        Process process = processes.get(rank);
        return process.waitFor(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
                ? OptionalInt.of(process.exitValue())
                : OptionalInt.empty();
    }

    /**
     * Stops every process still running, first asking (so that it may write its flight record as it exits), then
     * forcibly, and waits a little for each to end, so that the next job does not start beside what remains of this
     * one (a GPU context, a port). Idempotent.
     */
    @Override
    public void close() {
        processes.forEach(Process::destroy);
        try {
            for (Process process : processes) {
                if (!process.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * This Java, the class path this program runs from ({@link ProgramClassPath}) and the {@code collectives.*} properties it was given, then {@code jvmOptions}. The
     * ranks of a job share the cores, and a rank's own work is light beside the backend's: a quick start and little
     * compiling matter more than peak speed (the client compiler, one GC thread).
     */
    private static List<String> command(List<String> jvmOptions, List<String> toolArguments) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xss16m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                Backends.NATIVE_ACCESS_OPTION));
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("collectives."))
                .sorted()
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", ProgramClassPath.text(), Tools.class.getName()));
        command.addAll(toolArguments);
        return command;
    }

    /** The rank's place in the job, and nothing of a launcher or job around this process. */
    private static void place(
            Map<String, String> env, Placement placement, int size, int rank, String rendezvous, String token) {
        env.keySet()
                .removeIf(k -> INHERITED_NAMES.contains(k)
                        || INHERITED_PREFIXES.stream().anyMatch(k::startsWith));
        env.put("COLLECTIVES_BACKEND", placement.backend());
        env.put("COLLECTIVES_RANK", String.valueOf(rank));
        env.put("COLLECTIVES_WORLD_SIZE", String.valueOf(size));
        env.put("COLLECTIVES_LOCAL_RANK", String.valueOf(rank));
        env.put("COLLECTIVES_LOCAL_SIZE", String.valueOf(size));
        env.put("COLLECTIVES_DEVICE", String.valueOf(rank % placement.devices()));
        env.put("COLLECTIVES_RENDEZVOUS", rendezvous);
        env.put("COLLECTIVES_JOB_TOKEN", token);
        if (size > placement.devices() && !SIM.equals(placement.backend())) {
            env.put("NCCL_HOSTID", placement.hostName() + "-rank-" + rank);
            env.putIfAbsent("NCCL_SOCKET_IFNAME", "lo");
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }
}
