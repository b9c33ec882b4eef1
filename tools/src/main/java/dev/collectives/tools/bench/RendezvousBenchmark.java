package dev.collectives.tools.bench;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.HelpAndVersion;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.RendezvousServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The control plane at scale: for each size, a {@link RendezvousServer} in this process and that many members, each
 * on a thread with its own connection, in processes of their own ({@link RendezvousMembers}), as few as their
 * descriptors allow ({@code ulimit -n}). Reports the time from the members' start until every member has joined (and
 * the CPU all the processes spent on it, by kind of thread), one allgather of {@code --value} bytes from each
 * member (checked; up to {@code --gather-up-to} members), the heartbeats the server sends and receives per
 * second while the job idles, how many connection attempts the members had to repeat to join, the server's threads,
 * and the heap the server holds per member.
 */
@Command(
        name = "rendezvous",
        versionProvider = BuildVersion.class,
        sortOptions = false,
        description = "Measures a rendezvous server with many members (in processes of their own): time to form the "
                + "job, one allgather, heartbeat traffic, handshake retries, the server's threads and heap per member.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:measured, every allgather right",
            "1:a job failed, or an allgather was wrong",
            "2:a bad " + "command line"
        })
public final class RendezvousBenchmark implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    private static final String TOKEN = "bench-rendezvous-token-0123456789abcdef";
    /** A heartbeat on the wire: type, operation, length, the sender's rank and its HMAC-SHA256, TCP/IP aside. */
    private static final int HEARTBEAT_BYTES = 1 + 4 + 4 + 4 + 32;

    /** Descriptors a process keeps for what is not a member's connection (its jars, its pipes, the JVM's own). */
    private static final int SPARE_DESCRIPTORS = 512;

    @Option(
            names = "--members",
            split = ",",
            defaultValue = "64,256,1024",
            description = "Job sizes, comma-separated (default ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(
            names = "--value",
            defaultValue = "4096",
            description = "Bytes each member gives the allgather (default ${DEFAULT-VALUE}).")
    int valueBytes;

    @Option(
            names = "--gather-up-to",
            defaultValue = "4096",
            paramLabel = "MEMBERS",
            description = "The largest job that also runs the allgather: every member receives every member's value, "
                    + "members² values in all (default ${DEFAULT-VALUE}).")
    int gatherUpTo;

    @Option(
            names = "--heartbeat-timeout",
            defaultValue = "6",
            paramLabel = "SECONDS",
            description = "The server's heartbeat timeout; beats go every sixth of it (default ${DEFAULT-VALUE}).")
    int heartbeatSeconds;

    @Option(
            names = "--idle",
            defaultValue = "5",
            paramLabel = "SECONDS",
            description =
                    "How long the formed job idles while its heartbeats are counted (default " + "${DEFAULT-VALUE}).")
    int idleSeconds;

    @Option(
            names = "--members-per-process",
            defaultValue = "4096",
            paramLabel = "COUNT",
            description = "The most members one process holds (each on a thread of its own; fewer where the "
                    + "descriptor limit asks) (default ${DEFAULT-VALUE}).")
    int membersPerProcess;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new RendezvousBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException, IOException {
        sizes.forEach(size -> BenchCommandLine.positive(spec, "--members", size));
        BenchCommandLine.positive(spec, "--value", valueBytes);
        BenchCommandLine.positive(spec, "--heartbeat-timeout", heartbeatSeconds);
        BenchCommandLine.positive(spec, "--gather-up-to", gatherUpTo);
        BenchCommandLine.positive(spec, "--idle", idleSeconds);
        BenchCommandLine.positive(spec, "--members-per-process", membersPerProcess);
        System.out.printf(
                "# RendezvousBenchmark: members on threads of processes of their own, each with its own connection; "
                        + "allgather of %d bytes each; heartbeat timeout %d s; heartbeats counted at the server over "
                        + "%d s idle, %d bytes each; heap per member: the server process's, after a collection; "
                        + "cpu: the seconds of CPU that the server's and the members' processes spent on it (forming's "
                        + "by kind of thread on the line below each size)%n",
                valueBytes, heartbeatSeconds, idleSeconds, HEARTBEAT_BYTES);
        System.out.printf(
                "%8s %10s %12s %14s %16s %12s %12s %14s %10s %10s %14s %16s%n",
                "members",
                "form(ms)",
                "form cpu(s)",
                "allgather(ms)",
                "allgather cpu(s)",
                "beats in/s",
                "beats out/s",
                "beat bytes/s",
                "retries",
                "processes",
                "server threads",
                "heap/member(B)");
        boolean allRight = true;
        for (int size : sizes) {
            Optional<String> failure = measure(size);
            if (failure.isPresent()) {
                System.out.printf("%8d %s%n", size, failure.get());
                allRight = false;
            }
        }
        return allRight ? 0 : BenchCommandLine.FAILED;
    }

    /**
     * One job of {@code size} members, spread over as few processes as their descriptors allow: prints its row, or
     * returns why it failed.
     */
    private Optional<String> measure(int size) throws InterruptedException, IOException {
        Duration heartbeatTimeout = Duration.ofSeconds(heartbeatSeconds);
        RendezvousEndpoint endpoint = RendezvousEndpoint.parse("tcp://127.0.0.1:" + freePort());
        int descriptors = (int) Math.max(1, Math.min(Integer.MAX_VALUE, descriptorLimit() - SPARE_DESCRIPTORS));
        if (size > descriptors) {
            return Optional.of("needs " + size + " descriptors for the server's connections; this process may open "
                    + descriptors + " (ulimit -n)");
        }
        int perProcess = Math.min(descriptors, membersPerProcess);
        long heapBefore = usedHeap();
        List<MemberProcess> processes = new ArrayList<>();
        try (RendezvousServer server =
                RendezvousServer.start(endpoint, size, TOKEN, RendezvousServer.DEFAULT_TIMEOUT, heartbeatTimeout)) {
            for (int from = 0; from < size; from += perProcess) {
                processes.add(new MemberProcess(endpoint, size, from, Math.min(size, from + perProcess)));
            }
            for (MemberProcess process : processes) {
                process.expect("ready");
            }
            long start = System.nanoTime();
            Duration cpuAtStart = cpu(processes);
            ThreadCpu threadsAtStart = ThreadCpu.of(pids(processes));
            processes.forEach(p -> p.tell("join"));
            int retries = 0;
            for (MemberProcess process : processes) {
                retries += Integer.parseInt(process.expect("joined"));
            }
            long formed = System.nanoTime();
            Duration cpuAtFormed = cpu(processes);
            Map<String, Double> formingCpu = ThreadCpu.of(pids(processes)).since(threadsAtStart);
            boolean gathers = size <= gatherUpTo;
            if (gathers) {
                processes.forEach(p -> p.tell("exchange"));
                for (MemberProcess process : processes) {
                    process.expect("gathered");
                }
            }
            long gatheredAt = System.nanoTime();
            Duration cpuAtGathered = cpu(processes);
            long serverThreads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("collectives-rendezvous-server"))
                    .count();
            double heapPerMember = (usedHeap() - heapBefore) / (double) size;
            long sentBefore = server.heartbeatsSent();
            long receivedBefore = server.heartbeatsReceived();
            long idleStart = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds)); // the job idles: only heartbeats go
            double idle = (System.nanoTime() - idleStart) / 1e9;
            double in = (server.heartbeatsReceived() - receivedBefore) / idle;
            double out = (server.heartbeatsSent() - sentBefore) / idle;
            processes.forEach(p -> p.tell("leave"));
            for (MemberProcess process : processes) {
                process.expect("left");
            }
            Optional<String> ended = server.awaitEnd();
            if (ended.isPresent()) {
                return ended;
            }
            System.out.printf(
                    "%8d %10.1f %12.2f %14s %16s %12.1f %12.1f %14.0f %10d %10d %14d %16.0f%n",
                    size,
                    (formed - start) / 1e6,
                    cpuAtFormed.minus(cpuAtStart).toMillis() / 1e3,
                    gathers ? String.format("%.1f", (gatheredAt - formed) / 1e6) : "-",
                    gathers
                            ? String.format(
                                    "%.2f", cpuAtGathered.minus(cpuAtFormed).toMillis() / 1e3)
                            : "-",
                    in,
                    out,
                    (in + out) * HEARTBEAT_BYTES,
                    retries,
                    processes.size(),
                    serverThreads,
                    heapPerMember);
            System.out.printf("#   form cpu by thread:%s%n", byThread(formingCpu));
            return Optional.empty();
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage());
        } finally {
            processes.forEach(MemberProcess::close);
        }
    }

    /** This process's and the members' processes' ids. */
    private static List<Long> pids(List<MemberProcess> processes) {
        List<Long> pids = new ArrayList<>(List.of(ProcessHandle.current().pid()));
        processes.forEach(p -> pids.add(p.process.pid()));
        return pids;
    }

    /** " C2 CompilerThre 1.23 s, ..." for the kinds of thread that spent at least 10 ms, most first. */
    private static String byThread(Map<String, Double> seconds) {
        StringBuilder line = new StringBuilder();
        seconds.entrySet().stream()
                .filter(e -> e.getValue() >= 0.01)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> line.append(String.format(" %s %.2f s,", e.getKey(), e.getValue())));
        return line.length() == 0 ? " (not known here)" : line.substring(0, line.length() - 1);
    }

    /** The CPU time this process and the members' processes have spent so far. */
    private static Duration cpu(List<MemberProcess> processes) {
        Duration total = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        for (MemberProcess process : processes) {
            total = total.plus(process.process.info().totalCpuDuration().orElse(Duration.ZERO));
        }
        return total;
    }

    /** How many descriptors a process may open (as {@code ulimit -n} says). */
    private static long descriptorLimit() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount()
                : 4096;
    }

    /** The heap in use once the garbage is collected. */
    private static long usedHeap() {
        System.gc();
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }

    /** A process of members ({@link RendezvousMembers}), which takes its steps from this one. */
    private final class MemberProcess implements AutoCloseable {
        private final Process process;
        private final BufferedReader said;
        private final PrintStream steps;

        MemberProcess(RendezvousEndpoint endpoint, int size, int from, int to) throws IOException {
            process = new ProcessBuilder(
                            ProcessHandle.current().info().command().orElse("java"),
                            "-cp",
                            System.getProperty("java.class.path"),
                            RendezvousMembers.class.getName(),
                            endpoint.toString(),
                            Integer.toString(size),
                            Integer.toString(from),
                            Integer.toString(to),
                            Integer.toString(valueBytes),
                            TOKEN)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            said = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            steps = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        void tell(String step) {
            steps.println(step);
        }

        /** Waits until it says {@code word}; returns what follows it; fails with what it said instead. */
        String expect(String word) throws IOException {
            String line = said.readLine();
            if (line == null || !(line.equals(word) || line.startsWith(word + " "))) {
                throw new IllegalStateException(line == null ? "a process of members ended" : line);
            }
            return line.substring(word.length()).trim();
        }

        @Override
        public void close() {
            process.destroy();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
