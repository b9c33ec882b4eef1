package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * An authenticated member that sends random sequences of messages (any type, operation and length, heartbeats for
 * any rank, and raw garbage), seeded so that a failure names its seed: no thread of the server dies, and once both
 * members' connections end, it says how the job ended.
 */
class AuthenticatedFuzzTest {
    private static final int CASES = 150;
    private static final int FIRST_SEED = 4400;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @Test
    void randomMessagesFromAnAuthenticatedMemberNeitherHangNorCrashTheServer() throws Exception {
        List<Throwable> crashes = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> crashes.add(e));
        try {
            for (int seed = FIRST_SEED; seed < FIRST_SEED + CASES; seed++) {
                try {
                    fuzz(new Random(seed));
                    assertEquals(List.of(), crashes, "threads that died");
                } catch (AssertionError | IOException | ExecutionException e) {
                    throw new AssertionError("seed " + seed + ": " + e, e);
                }
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    private static void fuzz(Random random) throws IOException, InterruptedException, ExecutionException {
        int port = RankThreadsForTests.freePort();
        try (JobServer server = JobServer.start(
                RendezvousEndpoint.parse("tcp://127.0.0.1:" + port),
                2,
                RankThreadsForTests.TOKEN,
                TIMEOUT,
                Duration.ofSeconds(30))) {
            try (Channel quiet = RankThreadsForTests.authenticatedAs(port, 0, 2);
                    Channel fuzzer = RankThreadsForTests.authenticatedAs(port, 1, 2)) {
                int messages = 1 + random.nextInt(20);
                for (int m = 0; m < messages; m++) {
                    try {
                        sendOne(fuzzer, random);
                    } catch (IOException excluded) {
                        break; // the server closed its connection: it was excluded
                    }
                }
            }
            CompletableFuture<Optional<String>> end = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.awaitEnd();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                end.get(30, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("the server did not end the job once every member's connection ended; deaths: " + server.deaths());
            }
        }
    }

    /** One message of a random type (valid or not), operation and length, or a few bytes of garbage. */
    private static void sendOne(Channel fuzzer, Random random) throws IOException {
        Deadline deadline = Deadline.after(TIMEOUT);
        switch (random.nextInt(4)) {
            case 0 -> fuzzer.send(FrameType.HEARTBEAT, random.nextInt(3), JobToken.ints(random.nextInt(3)), deadline);
            case 1 -> {
                byte[] garbage = new byte[random.nextInt(64)];
                random.nextBytes(garbage);
                OutputStream out = fuzzer.out();
                out.write(garbage);
                out.flush();
            }
            default -> {
                byte[] bytes = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(200)];
                random.nextBytes(bytes);
                fuzzer.send(
                        FrameType.values()[random.nextInt(FrameType.values().length)],
                        random.nextInt(4),
                        bytes,
                        deadline);
            }
        }
    }
}
