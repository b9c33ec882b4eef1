package dev.collectives.tools.bench;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.bootstrap.Rendezvous;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process of {@link RendezvousBenchmark}'s members: ranks {@code from} to {@code to - 1} of a job of {@code size}
 * at {@code endpoint}, each on a thread of its own with its own connection. It takes its steps from standard input
 * ({@code join}, then {@code exchange} or straight {@code leave}) and says on standard output when each is done
 * ({@code ready}, {@code joined RETRIES}, {@code gathered}, {@code left}), or why it failed ({@code failed WHY}).
 */
public final class RendezvousMembers {
    private static final Pattern FAILED_ATTEMPTS = Pattern.compile("after (\\d+) failed attempts");

    private RendezvousMembers() {}

    /** Arguments: endpoint, size, from, to, value bytes, job token. */
    public static void main(String[] args) throws IOException, InterruptedException {
        String endpoint = args[0];
        int size = Integer.parseInt(args[1]);
        int from = Integer.parseInt(args[2]);
        int to = Integer.parseInt(args[3]);
        int valueBytes = Integer.parseInt(args[4]);
        String token = args[5];
        AtomicInteger retries = countRetries();
        BufferedReader steps = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        say("ready");
        expect(steps, "join");
        CountDownLatch joined = new CountDownLatch(to - from);
        CountDownLatch gather = new CountDownLatch(1);
        CountDownLatch gathered = new CountDownLatch(to - from);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicBoolean exchange = new AtomicBoolean();
        AtomicReference<String> failure = new AtomicReference<>();
        List<Thread> members = new ArrayList<>();
        for (int rank = from; rank < to; rank++) {
            int r = rank;
            Thread member = new Thread(
                    null,
                    () -> {
                        boolean counted = false;
                        try (Rendezvous rendezvous = Bootstrap.builder()
                                .rank(r)
                                .size(size)
                                .rendezvous(endpoint)
                                .jobToken(token)
                                .option("rendezvousServer", "standalone")
                                .build()
                                .rendezvous()) {
                            joined.countDown();
                            gather.await();
                            if (!exchange.get()) {
                                counted = true;
                                leave.await();
                                return;
                            }
                            byte[] value = new byte[valueBytes];
                            Arrays.fill(value, (byte) r);
                            byte[][] all = rendezvous.allGather(value);
                            for (int other = 0; other < size; other++) {
                                if (all[other].length != valueBytes || all[other][valueBytes - 1] != (byte) other) {
                                    failure.compareAndSet(null, "rank " + r + " gathered a wrong value from " + other);
                                }
                            }
                            gathered.countDown();
                            counted = true;
                            leave.await();
                        } catch (RuntimeException e) {
                            failure.compareAndSet(null, "rank " + r + ": " + e.getMessage());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            if (!counted) { // a member that failed holds the others up no longer
                                joined.countDown();
                                gathered.countDown();
                            }
                        }
                    },
                    "bench-member-" + rank,
                    256 * 1024);
            member.setDaemon(true);
            member.start();
            members.add(member);
        }
        joined.await();
        say(failure.get() != null ? "failed " + failure.get() : "joined " + retries.get());
        String step = steps.readLine();
        exchange.set("exchange".equals(step));
        gather.countDown();
        if (exchange.get()) {
            gathered.await();
            say(failure.get() != null ? "failed " + failure.get() : "gathered");
            expect(steps, "leave");
        } else if (!"leave".equals(step)) {
            throw new IllegalStateException("expected the step exchange or leave, got " + step);
        }
        leave.countDown();
        for (Thread member : members) {
            member.join();
        }
        say("left");
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void expect(BufferedReader steps, String step) throws IOException {
        String line = steps.readLine();
        if (!step.equals(line)) {
            throw new IllegalStateException("expected the step " + step + ", got " + line);
        }
    }

    /** Adds up the failed attempts members log when they finally reach the server. */
    private static AtomicInteger countRetries() {
        AtomicInteger retries = new AtomicInteger();
        Logger logger = Logger.getLogger("dev.collectives.bootstrap");
        logger.setLevel(Level.FINE);
        logger.addHandler(new Handler() {
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
        });
        return retries;
    }
}
