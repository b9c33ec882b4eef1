package dev.collectives.runtime.bootstrap;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectUniqueId;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * One rank of a test that {@link ProcessPerRankExtension} runs as a job of processes: runs the test whose unique id is the
 * argument, with its lifecycle methods, through the JUnit Platform in this JVM. Exits with 0 where it passed; else
 * writes what it threw (the first failure, later ones suppressed) to the file {@value ProcessPerRankExtension#REPORT_PROPERTY}
 * names and exits with {@value ProcessPerRankExtension#FAILED}. It ends at once when the JVM that started it ends.
 */
public final class RankProcessMain {
    /** The exit status of a rank whose test's JVM has ended. */
    private static final int ORPHANED = 70;

    private RankProcessMain() {}

    public static void main(String[] args) throws IOException {
        ProcessHandle.current()
                .parent()
                .ifPresent(parent ->
                        parent.onExit().thenRun(() -> Runtime.getRuntime().halt(ORPHANED)));
        String uniqueId = args[0];
        Outcomes outcomes = new Outcomes();
        LauncherFactory.create()
                .execute(
                        LauncherDiscoveryRequestBuilder.request()
                                .selectors(selectUniqueId(uniqueId))
                                .build(),
                        outcomes);
        if (outcomes.tests == 0 && outcomes.failures.isEmpty()) {
            outcomes.failures.add(new AssertionError("no test has the unique id " + uniqueId));
        }
        if (outcomes.failures.isEmpty()) {
            System.exit(0);
        }
        Throwable failure = outcomes.failures.get(0);
        outcomes.failures.stream().skip(1).forEach(failure::addSuppressed);
        Files.write(Path.of(System.getProperty(ProcessPerRankExtension.REPORT_PROPERTY)), serialized(failure));
        System.exit(ProcessPerRankExtension.FAILED);
    }

    /** {@code failure} serialized, or a copy of it that can be (its classes, messages and stack traces). */
    private static byte[] serialized(Throwable failure) throws IOException {
        try {
            return serialize(failure);
        } catch (NotSerializableException e) {
            return serialize(copy(failure));
        }
    }

    private static byte[] serialize(Throwable failure) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(failure);
        }
        return bytes.toByteArray();
    }

    private static Throwable copy(Throwable failure) {
        AssertionError copy = new AssertionError(
                failure.toString(),
                failure.getCause() == null || failure.getCause() == failure ? null : copy(failure.getCause()));
        copy.setStackTrace(failure.getStackTrace());
        for (Throwable suppressed : failure.getSuppressed()) {
            copy.addSuppressed(copy(suppressed));
        }
        return copy;
    }

    /** The tests run, and what failed: the test, or a lifecycle method of its class. */
    private static final class Outcomes implements TestExecutionListener {
        private final List<Throwable> failures = new ArrayList<>();
        private int tests;

        @Override
        public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
            if (identifier.isTest()) {
                tests++;
            }
            if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                failures.add(result.getThrowable()
                        .orElseGet(() -> new AssertionError(identifier.getDisplayName() + ": " + result.getStatus())));
            }
        }
    }
}
