package dev.collectives.tools.bench;

import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.HelpAndVersion;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.RendezvousServer;
import dev.collectives.runtime.bootstrap.Rendezvous;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The control plane at scale: for each size, a {@link RendezvousServer} in this process and that many members, each
 * on a thread of this process with its own connection (their heartbeats on this process's one heartbeat thread).
 * Reports the time from the first member's start until every member has joined, one allgather of {@code --value}
 * bytes from each member (checked), the heartbeats the server sends and receives per second while the job idles,
 * and how many connection attempts the members had to repeat to join.
 */
@Command(
        name = "rendezvous",
        versionProvider = BuildVersion.class,
        sortOptions = false,
        description = "Measures a rendezvous server with many members in this process: time to form the job, one "
                + "allgather, heartbeat traffic, handshake retries.",
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

    private static final Pattern FAILED_ATTEMPTS = Pattern.compile("after (\\d+) failed attempts");

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

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new RendezvousBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        sizes.forEach(size -> BenchCommandLine.positive(spec, "--members", size));
        BenchCommandLine.positive(spec, "--value", valueBytes);
        BenchCommandLine.positive(spec, "--heartbeat-timeout", heartbeatSeconds);
        BenchCommandLine.positive(spec, "--idle", idleSeconds);
        System.out.printf(
                "# RendezvousBenchmark: members on threads of one process, each with its own connection; allgather "
                        + "of %d bytes each; heartbeat timeout %d s; heartbeats counted at the server over %d s idle, "
                        + "%d bytes each%n",
                valueBytes, heartbeatSeconds, idleSeconds, HEARTBEAT_BYTES);
        System.out.printf(
                "%8s %10s %14s %12s %12s %14s %10s%n",
                "members", "form(ms)", "allgather(ms)", "beats in/s", "beats out/s", "beat bytes/s", "retries");
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

    /** One job of {@code size} members: prints its row, or returns why it failed. */
    private Optional<String> measure(int size) throws InterruptedException {
        Duration heartbeatTimeout = Duration.ofSeconds(heartbeatSeconds);
        RendezvousEndpoint endpoint = RendezvousEndpoint.parse("tcp://127.0.0.1:" + freePort());
        AtomicInteger retries = new AtomicInteger();
        Logger logger = Logger.getLogger("dev.collectives.bootstrap");
        Handler counter = retryCounter(retries);
        Level level = logger.getLevel();
        logger.setLevel(Level.FINE);
        logger.addHandler(counter);
        CountDownLatch joined = new CountDownLatch(size);
        CountDownLatch gather = new CountDownLatch(1);
        CountDownLatch gathered = new CountDownLatch(size);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicReference<String> failure = new AtomicReference<>();
        List<Thread> members = new ArrayList<>();
        try (RendezvousServer server =
                RendezvousServer.start(endpoint, size, TOKEN, RendezvousServer.DEFAULT_TIMEOUT, heartbeatTimeout)) {
            long start = System.nanoTime();
            for (int rank = 0; rank < size; rank++) {
                int r = rank;
                Thread member = new Thread(
                        null,
                        () -> member(r, size, endpoint, joined, gather, gathered, leave, failure),
                        "bench-member-" + rank,
                        256 * 1024);
                member.setDaemon(true);
                member.start();
                members.add(member);
            }
            joined.await();
            long formed = System.nanoTime();
            gather.countDown();
            gathered.await();
            long gatheredAt = System.nanoTime();
            if (failure.get() != null) {
                leave.countDown();
                return Optional.of(failure.get());
            }
            long sentBefore = server.heartbeatsSent();
            long receivedBefore = server.heartbeatsReceived();
            long idleStart = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds)); // the job idles: only heartbeats go
            double idle = (System.nanoTime() - idleStart) / 1e9;
            double in = (server.heartbeatsReceived() - receivedBefore) / idle;
            double out = (server.heartbeatsSent() - sentBefore) / idle;
            leave.countDown();
            for (Thread member : members) {
                member.join();
            }
            Optional<String> ended = server.awaitEnd();
            if (ended.isPresent() || failure.get() != null) {
                return Optional.of(ended.orElse(failure.get()));
            }
            System.out.printf(
                    "%8d %10.1f %14.1f %12.1f %12.1f %14.0f %10d%n",
                    size,
                    (formed - start) / 1e6,
                    (gatheredAt - formed) / 1e6,
                    in,
                    out,
                    (in + out) * HEARTBEAT_BYTES,
                    retries.get());
            return Optional.empty();
        } finally {
            leave.countDown();
            logger.removeHandler(counter);
            logger.setLevel(level);
        }
    }

    /** Member {@code rank}: joins, gathers once when told, checks what it gathered, and leaves when told. */
    private void member(
            int rank,
            int size,
            RendezvousEndpoint endpoint,
            CountDownLatch joined,
            CountDownLatch gather,
            CountDownLatch gathered,
            CountDownLatch leave,
            AtomicReference<String> failure) {
        boolean counted = false;
        try (Rendezvous rendezvous = Bootstrap.builder()
                .rank(rank)
                .size(size)
                .rendezvous(endpoint.toString())
                .jobToken(TOKEN)
                .option("rendezvousServer", "standalone")
                .build()
                .rendezvous()) {
            joined.countDown();
            gather.await();
            byte[] value = new byte[valueBytes];
            Arrays.fill(value, (byte) rank);
            byte[][] all = rendezvous.allGather(value);
            for (int r = 0; r < size; r++) {
                if (all[r].length != valueBytes || all[r][valueBytes - 1] != (byte) r) {
                    failure.compareAndSet(null, "rank " + rank + " gathered a wrong value from rank " + r);
                }
            }
            gathered.countDown();
            counted = true;
            leave.await();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, "rank " + rank + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (!counted) { // a member that failed does not hold the others up
                joined.countDown();
                gathered.countDown();
            }
        }
    }

    /** Adds up the failed attempts members log when they finally reach the server. */
    private static Handler retryCounter(AtomicInteger retries) {
        return new Handler() {
            @Override
            public void publish(LogRecord record) {
                Matcher m = FAILED_ATTEMPTS.matcher(String.valueOf(record.getMessage()));
                if (m.find()) {
                    retries.addAndGet(Integer.parseInt(m.group(1)));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
