package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Runs one body per rank in threads of this JVM and gives back each rank's result or failure, and its time. */
final class RankThreadsForTests {
    static final String TOKEN = "job-token-for-tests-0123456789abcdef";

    private RankThreadsForTests() {
    }

    /** What one rank's body returned or threw, and how long it took. */
    record Outcome<T>(T value, Throwable failure, long millis) {
        String message() {
            assertTrue(failure != null, "expected a failure, got " + value);
            return failure.getMessage();
        }

        T get() {
            if (failure != null) {
                throw new AssertionError("the rank failed: " + failure, failure);
            }
            return value;
        }
    }

    static <T> List<Outcome<T>> run(int ranks, IntFunction<Callable<T>> bodies) {
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<Outcome<T>>> futures = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                Callable<T> body = bodies.apply(r);
                futures.add(pool.submit(() -> {
                    long start = System.nanoTime();
                    try {
                        T value = body.call();
                        return new Outcome<>(value, null, (System.nanoTime() - start) / 1_000_000);
                    } catch (Throwable t) {
                        return new Outcome<T>(null, t, (System.nanoTime() - start) / 1_000_000);
                    }
                }));
            }
            List<Outcome<T>> outcomes = new ArrayList<>();
            for (Future<Outcome<T>> future : futures) {
                outcomes.add(future.get(60, TimeUnit.SECONDS));
            }
            return outcomes;
        } catch (Exception e) {
            throw new AssertionError("a rank did not finish: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    static Bootstrap bootstrap(String endpoint, int rank, int size, Duration timeout) {
        return bootstrap(endpoint, rank, size, timeout, TOKEN);
    }

    static Bootstrap bootstrap(String endpoint, int rank, int size, Duration timeout, String token) {
        return Bootstrap.builder().rank(rank).size(size).rendezvous(endpoint).timeout(timeout).jobToken(token)
                .build();
    }

    /** A loopback port nothing listens on right now. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Fails unless the step took no longer than its deadline plus a margin for a busy machine. */
    static void finishedWithin(Outcome<?> outcome, Duration deadline) {
        long limit = deadline.toMillis() + 2000;
        if (outcome.millis() > limit) {
            fail("took " + outcome.millis() + " ms, more than the deadline of " + deadline.toMillis()
                    + " ms plus 2 s");
        }
    }
}
