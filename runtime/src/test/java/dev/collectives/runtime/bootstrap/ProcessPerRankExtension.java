package dev.collectives.runtime.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Runs each test method it extends (those of a class, or one) as a job of processes, one rank each, where {@link
 * #needsProcesses()} says so (e.g. a host with fewer devices than ranks, where one process cannot hold them all).
 * The test's JVM then runs none of those tests and their lifecycle methods itself: for each test it starts one JVM per rank with its own class
 * path and settings ({@code collectives.*} properties, the thread stack size), and a launcher's variables that
 * make them one job ({@link GpuJob#variables}); each runs that one test with its lifecycle methods through the
 * JUnit Platform ({@link RankProcessMain}), where {@link TestRanks} joins the job as this process's rank. The test
 * passes here if it passed in every process; otherwise it fails naming each rank that failed, with what the rank
 * threw as the cause (the lowest rank's; the others' suppressed). A rank still running a grace period after another
 * failed, or {@value #TIMEOUT_PROPERTY} seconds (default 300) after the start, is killed and reported as hung.
 */
public abstract class ProcessPerRankExtension implements InvocationInterceptor {
    /** Set in the JVMs this extension starts: each is one rank of the test it runs. */
    static final String RANK_PROPERTY = "collectives.test.rankProcess";
    /** Where such a JVM writes what its test threw. */
    static final String REPORT_PROPERTY = "collectives.test.rankReport";
    /** The exit status of a rank whose test failed, after writing its report. */
    static final int FAILED = 1;
    /** How long a test's ranks may run, in seconds. */
    static final String TIMEOUT_PROPERTY = "collectives.test.rankTimeoutSeconds";

    private static final int LAST_LINES = 20;

    private final int ranks;
    private final String backend;
    private final boolean sharedDevice;
    private final Duration grace;
    private Boolean inProcesses;

    /**
     * {@code ranks} processes joining a {@code backend} job, on device 0 of this host if {@code sharedDevice}; once
     * one has failed, the others may run for {@code grace} (enough to fail in turn, which a rank that failed makes
     * them do by aborting its communicator).
     */
    protected ProcessPerRankExtension(int ranks, String backend, boolean sharedDevice, Duration grace) {
        this.ranks = ranks;
        this.backend = backend;
        this.sharedDevice = sharedDevice;
        this.grace = grace;
    }

    /** Whether the ranks must run as processes on this host; asked once, before the class's first method runs. */
    protected abstract boolean needsProcesses();

    /** Whether this JVM is one rank of a test that this extension runs as processes. */
    public static boolean isRankProcess() {
        return Boolean.getBoolean(RANK_PROPERTY);
    }

    private synchronized boolean delegates() {
        if (inProcesses == null) {
            inProcesses = !isRankProcess() && needsProcesses();
        }
        return inProcesses;
    }

    @Override
    public void interceptTestMethod(
            Invocation<Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext)
            throws Throwable {
        if (!delegates()) {
            invocation.proceed();
            return;
        }
        invocation.skip();
        runAsJob(extensionContext.getUniqueId());
    }

    @Override
    public void interceptBeforeAllMethod(
            Invocation<Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext)
            throws Throwable {
        proceedUnlessDelegated(invocation);
    }

    @Override
    public void interceptBeforeEachMethod(
            Invocation<Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext)
            throws Throwable {
        proceedUnlessDelegated(invocation);
    }

    @Override
    public void interceptAfterEachMethod(
            Invocation<Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext)
            throws Throwable {
        proceedUnlessDelegated(invocation);
    }

    @Override
    public void interceptAfterAllMethod(
            Invocation<Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext)
            throws Throwable {
        proceedUnlessDelegated(invocation);
    }

    /** Lifecycle methods run in the ranks' processes, with the test, when those run it. */
    private void proceedUnlessDelegated(Invocation<Void> invocation) throws Throwable {
        if (delegates()) {
            invocation.skip();
        } else {
            invocation.proceed();
        }
    }

    private void runAsJob(String uniqueId) throws IOException, InterruptedException {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        Path reports = Files.createTempDirectory("collectives-ranks");
        List<ChildRank> children = new ArrayList<>();
        try {
            for (int rank = 0; rank < ranks; rank++) {
                children.add(ChildRank.start(
                        List.of(),
                        "rank " + rank,
                        RankProcessMain.class,
                        jvmOptions(report(reports, rank)),
                        GpuJob.variables(rank, ranks, backend, endpoint, sharedDevice),
                        true,
                        uniqueId));
            }
            Map<Integer, Throwable> failures = await(children, reports);
            if (!failures.isEmpty()) {
                throw failure(failures);
            }
        } finally {
            children.forEach(ChildRank::close);
            for (int rank = 0; rank < ranks; rank++) {
                Files.deleteIfExists(report(reports, rank));
            }
            Files.delete(reports);
        }
    }

    private static Path report(Path reports, int rank) {
        return reports.resolve("rank-" + rank + ".ser");
    }

    /**
     * This JVM's thread stack size and heap, and its {@code collectives.*} properties but those that would place a
     * rank elsewhere in the job, then the rank's own.
     */
    private static List<String> jvmOptions(Path report) {
        List<String> options = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(o -> o.startsWith("-Xss") || o.startsWith("-Xmx"))
                .collect(Collectors.toList());
        System.getProperties().stringPropertyNames().stream()
                .sorted()
                .filter(k -> k.startsWith("collectives.")
                        && !k.equals(RANK_PROPERTY)
                        && !k.equals(REPORT_PROPERTY)
                        && Arrays.stream(Settings.Explicit.values()).noneMatch(s -> s.property.equals(k)))
                .forEach(k -> options.add("-D" + k + "=" + System.getProperty(k)));
        options.add("-D" + RANK_PROPERTY + "=true");
        options.add("-D" + REPORT_PROPERTY + "=" + report);
        return options;
    }

    /** Waits for every rank to end; the failures by rank: what each threw, or that it crashed or hung. */
    private Map<Integer, Throwable> await(List<ChildRank> children, Path reports) throws InterruptedException {
        long seconds = Long.getLong(TIMEOUT_PROPERTY, 300);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String limit = seconds + " s after the start";
        Map<Integer, Throwable> failures = new TreeMap<>();
        Set<Integer> running =
                IntStream.range(0, children.size()).boxed().collect(Collectors.toCollection(TreeSet::new));
        while (!running.isEmpty()) {
            if (!anyEnds(running.stream().map(children::get), deadline)) {
                for (int rank : running) {
                    children.get(rank).kill();
                    failures.put(
                            rank,
                            new AssertionError("rank " + rank + " was still running " + limit
                                    + ", and was killed. Its last lines: "
                                    + children.get(rank).lastLines(LAST_LINES)));
                }
                break;
            }
            boolean noneFailedYet = failures.isEmpty();
            for (Iterator<Integer> ranks = running.iterator(); ranks.hasNext(); ) {
                int rank = ranks.next();
                ChildRank child = children.get(rank);
                if (child.onExit().isDone()) {
                    ranks.remove();
                    outcome(rank, child, report(reports, rank)).ifPresent(f -> failures.put(rank, f));
                }
            }
            if (noneFailedYet && !failures.isEmpty()) {
                deadline = Math.min(deadline, System.nanoTime() + grace.toNanos());
                limit = grace.toSeconds() + " s after rank "
                        + failures.keySet().iterator().next() + " failed";
            }
        }
        return failures;
    }

    /** Whether one of {@code children} ended before {@code deadline} ({@link System#nanoTime()}). */
    private static boolean anyEnds(Stream<ChildRank> children, long deadline) throws InterruptedException {
        try {
            CompletableFuture.anyOf(children.map(ChildRank::onExit).toArray(CompletableFuture[]::new))
                    .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    /** What rank {@code rank} threw, read from its report, or why it has none; empty where it passed. */
    private static Optional<Throwable> outcome(int rank, ChildRank child, Path report) {
        int status = child.exitValue();
        if (status == 0) {
            return Optional.empty();
        }
        if (status != FAILED || !Files.exists(report)) {
            return Optional.of(new AssertionError("rank " + rank + " ended with exit status " + status
                    + " and no report of its test. Its last lines: " + child.lastLines(LAST_LINES)));
        }
        try (InputStream in = Files.newInputStream(report);
                ObjectInputStream objects = new TestClassesInput(in)) {
            return Optional.of((Throwable) objects.readObject());
        } catch (IOException | ClassNotFoundException e) {
            throw new AssertionError("rank " + rank + "'s report cannot be read back", e);
        }
    }

    /** One failure naming every failed rank, the lowest one's failure its cause, the others' suppressed. */
    private AssertionError failure(Map<Integer, Throwable> failures) {
        String header = failures.size() == 1
                ? "rank " + failures.keySet().iterator().next() + " of " + ranks + " failed in its process: "
                : failures.keySet().stream()
                        .map(String::valueOf)
                        .collect(
                                Collectors.joining(", ", "ranks ", " of " + ranks + " failed, each in its process:\n"));
        String lines = failures.entrySet().stream()
                .map(f -> (failures.size() == 1 ? "" : "rank " + f.getKey() + ": ") + f.getValue())
                .collect(Collectors.joining("\n"));
        List<Throwable> causes = new ArrayList<>(failures.values());
        AssertionError failure = new AssertionError(header + lines, causes.get(0));
        causes.stream().skip(1).forEach(failure::addSuppressed);
        return failure;
    }

    /** Reads a report with the classes of the tests, which the JUnit console launcher keeps in a loader of its own. */
    private static final class TestClassesInput extends ObjectInputStream {
        TestClassesInput(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass description) throws IOException, ClassNotFoundException {
            try {
                return Class.forName(description.getName(), false, ProcessPerRankExtension.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                return super.resolveClass(description);
            }
        }
    }
}
