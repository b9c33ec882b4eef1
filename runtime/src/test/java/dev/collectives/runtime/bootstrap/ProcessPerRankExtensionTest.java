package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.AssertionFailedError;

/**
 * {@link ProcessPerRankExtension} on the sim backend: the tests of {@link SimJob} and {@link NoJob}, run through the JUnit
 * Platform here, each run as a job of two JVMs, and the verdict this JVM gives for each.
 */
class ProcessPerRankExtensionTest {
    /** Set where this test runs its subjects, which run nowhere else but in their ranks' processes. */
    private static final String SUBJECT = "collectives.test.rankProcessesSubject";

    @Test
    void eachTestRunsAsOneProcessPerRankAndTheRanksThatFailedAreNamed() {
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        LauncherFactory.create()
                .execute(
                        LauncherDiscoveryRequestBuilder.request()
                                .selectors(selectClass(SimJob.class), selectClass(NoJob.class))
                                .configurationParameter(SUBJECT, "true")
                                .build(),
                        new TestExecutionListener() {
                            @Override
                            public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
                                if (identifier.isTest()) {
                                    results.put(identifier.getDisplayName(), result);
                                }
                            }
                        });
        assertEquals(4, results.size(), results.toString());

        TestExecutionResult passed = results.get("everyRankIsAProcessOfItsOwn()");
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, passed.getStatus(), passed.toString());

        Throwable oneFailed = results.get("rankOneFails()").getThrowable().orElseThrow();
        assertTrue(oneFailed.getMessage().startsWith("rank 1 of 2 failed in its process: "), oneFailed.getMessage());
        assertTrue(oneFailed.getMessage().contains("rank 1's own assertion"), oneFailed.getMessage());
        // what the rank threw, read back: the cluster-style failure, and the assertion inside it
        CollectivesException rankOne = assertInstanceOf(CollectivesException.class, oneFailed.getCause());
        assertEquals(1, rankOne.rank());
        assertInstanceOf(AssertionFailedError.class, rankOne.getCause());

        Throwable bothFailed = results.get("aRankThatThrowsFailsTheOthersInsteadOfLeavingThemWaiting()")
                .getThrowable()
                .orElseThrow();
        String message = bothFailed.getMessage();
        assertTrue(message.startsWith("ranks 0, 1 of 2 failed, each in its process:\nrank 0: "), message);
        String[] lines = message.split("\n");
        assertTrue(lines[1].contains("rank 1 called abort()"), message);
        assertTrue(
                message.lines()
                        .anyMatch(line ->
                                line.startsWith("rank 1: ") && line.contains("rank 1 gives up before the allreduce")),
                message);
        assertEquals(1, bothFailed.getSuppressed().length);

        String hung = results.get("aRankThatHangsIsKilledOnceAnotherHasFailed()")
                .getThrowable()
                .orElseThrow()
                .getMessage();
        assertTrue(hung.startsWith("ranks 0, 1 of 2 failed, each in its process:\nrank 0: "), hung);
        assertTrue(hung.contains("rank 0 does not wait for rank 1"), hung);
        assertTrue(
                hung.contains("\nrank 1: java.lang.AssertionError: rank 1 was still running 10 s after rank 0 failed,"
                        + " and was killed. Its last lines: ["),
                hung);
        assertTrue(hung.endsWith(", rank 1 waits]") || hung.endsWith("[rank 1 waits]"), hung);
    }

    @Test
    void aRankGetsTheClassPathOfTheLoaderOfTheTestsBeforeThisJvms(@TempDir Path tests) throws Exception {
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {tests.toUri().toURL()}, getClass().getClassLoader())) {
            List<String> entries = Arrays.asList(ChildRank.classPath(loader).split(File.pathSeparator));
            assertEquals(tests.toString(), entries.get(0));
            assertTrue(
                    entries.containsAll(
                            Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator))),
                    entries.toString());
        }
    }

    /**
     * Two ranks of the sim, always as processes; one still running 10 s after the other failed is killed (long enough
     * for a rank that fails too to say so on a saturated machine).
     */
    static final class TwoSimProcesses extends ProcessPerRankExtension {
        TwoSimProcesses() {
            super(2, "sim", false, Duration.ofSeconds(10));
        }

        @Override
        protected boolean needsProcesses() {
            return true;
        }
    }

    /** Whether the test above runs this, or a process of one of its ranks does; they run nowhere else. */
    static boolean launchedByItsTest(ExtensionContext context) {
        return ProcessPerRankExtension.isRankProcess()
                || context.getConfigurationParameter(SUBJECT).isPresent();
    }

    @EnabledIf("dev.collectives.runtime.bootstrap.ProcessPerRankExtensionTest#launchedByItsTest")
    @ExtendWith(TwoSimProcesses.class)
    static final class SimJob {
        private static TestRanks ranks;

        /** Once per class, and so once per test in each rank's process; never in the JVM that started them. */
        @BeforeAll
        static void join() {
            assertTrue(
                    ProcessPerRankExtension.isRankProcess(),
                    "the lifecycle methods run with the test, in its processes");
            Backend sim = Backends.get("sim");
            ranks = TestRanks.open(() -> sim.local(2), sim::join);
        }

        @AfterAll
        static void leave() {
            ranks.close();
        }

        @Test
        void everyRankIsAProcessOfItsOwn() {
            assertEquals(1, ranks.here().count());
            ranks.run(ctx -> {
                try (DeviceBuffer mine = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.INT64, 1);
                        DeviceBuffer all = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.INT64, ctx.size())) {
                    mine.copyFromHost(new long[] {ProcessHandle.current().pid()});
                    ctx.comm().allGather(mine, all, 1, DataType.INT64, ctx.stream());
                    ctx.stream().synchronize();
                    long[] pids = new long[ctx.size()];
                    all.copyToHost(pids);
                    assertEquals(2, LongStream.of(pids).distinct().count(), Arrays.toString(pids));
                }
            });
        }

        @Test
        void rankOneFails() {
            ranks.run(ctx -> assertNotEquals(1, ctx.rank(), "rank 1's own assertion"));
        }

        @Test
        void aRankThatThrowsFailsTheOthersInsteadOfLeavingThemWaiting() {
            ranks.run(ctx -> {
                try (DeviceBuffer b = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1)) {
                    if (ctx.rank() == 1) {
                        throw new IllegalStateException("rank 1 gives up before the allreduce");
                    }
                    ctx.comm().allReduce(b, b, 1, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                    ctx.stream().synchronize();
                }
            });
        }
    }

    /**
     * Ranks that form no job (a sim communicator's close would wait for the hung rank): rank 0 fails at once, and
     * rank 1 waits to be killed.
     */
    @EnabledIf("dev.collectives.runtime.bootstrap.ProcessPerRankExtensionTest#launchedByItsTest")
    @ExtendWith(TwoSimProcesses.class)
    static final class NoJob {
        @Test
        void aRankThatHangsIsKilledOnceAnotherHasFailed() throws InterruptedException {
            if (Bootstrap.fromEnvironment().rank() == 0) {
                fail("rank 0 does not wait for rank 1");
            }
            System.out.println("rank 1 waits");
            RankProcess.waitToBeKilled();
        }
    }
}
