package dev.collectives.backend.device;

import dev.collectives.runtime.bootstrap.Setting;
import dev.collectives.runtime.internal.SettingValues;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;

/**
 * Runs a communicator's native abort ({@code ncclCommAbort}/{@code mcclCommAbort}) on a thread of its own, under a
 * deadline. The abort can block, for instance while a captured graph's kernels wait on a peer that died, and a
 * caller that met the failure must not block with it: the failure reaches the user at once, and the abort finishes
 * behind. Where it does not return within {@value #TIMEOUT_PROPERTY} seconds, the policy {@value #POLICY_PROPERTY}
 * decides: {@code report} (the default) logs an error saying so and leaves the process to its owner; {@code exit}
 * logs it and halts the process with status {@value #EXIT_STATUS}, as a watchdog does, so that a job scheduler
 * restarts it with a fresh device.
 */
final class AbortWatch {
    /** Seconds a native abort may take before the policy applies. */
    static final String TIMEOUT_PROPERTY = Setting.DEVICE_ABORT_TIMEOUT.property;
    /** {@code report} or {@code exit}. */
    static final String POLICY_PROPERTY = Setting.DEVICE_ABORT_POLICY.property;
    /** The status a process halts with under the {@code exit} policy: the shell's status of an aborted process. */
    static final int EXIT_STATUS = 134;

    private static final System.Logger LOG = System.getLogger("dev.collectives.device");
    /** One timer for every watch: it only fires the policy, never runs an abort. */
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "collectives-abort-watch");
        t.setDaemon(true);
        return t;
    });

    /** What to do with a native abort that does not return in time. */
    enum Policy {
        /** Log an error and leave the process to its owner. */
        REPORT,
        /** Log an error and halt the process with {@link #EXIT_STATUS}. */
        EXIT;

        static Policy parse(String value) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(POLICY_PROPERTY + " is report or exit, not '" + value + "'", e);
            }
        }
    }

    /** A native call that returns a result code, as {@code NativeApi.commAbort} does. */
    @FunctionalInterface
    interface NativeCall {
        int call();
    }

    private final Duration timeout;
    private final Policy policy;
    private final IntConsumer halt;

    AbortWatch(Duration timeout, Policy policy, IntConsumer halt) {
        this.timeout = timeout;
        this.policy = policy;
        this.halt = halt;
    }

    /** How long a native abort may take before the policy applies. */
    Duration timeout() {
        return timeout;
    }

    /** The watch the system properties ask for, halting through {@link Runtime#halt}. */
    static AbortWatch fromSystemProperties() {
        return new AbortWatch(
                Duration.ofSeconds(SettingValues.number(Setting.DEVICE_ABORT_TIMEOUT, 30L)),
                Policy.parse(
                        SettingValues.ofProcess(Setting.DEVICE_ABORT_POLICY).orElse("report")),
                Runtime.getRuntime()::halt);
    }

    /**
     * Starts {@code abort} of {@code what} (e.g. "ncclCommAbort of nccl rank 1/2 on device 0") on its own thread
     * and returns at once: when it returns its result code, and when it either returned or was found overdue (then
     * the policy has applied).
     */
    Watched start(String what, NativeCall abort) {
        Watched watched = new Watched(what, new CompletableFuture<>(), new CompletableFuture<>());
        Thread thread = new Thread(
                () -> {
                    try {
                        watched.returned.complete(abort.call());
                    } catch (Throwable t) {
                        watched.returned.completeExceptionally(t);
                    }
                    watched.settled.complete(null);
                },
                "collectives-abort");
        thread.setDaemon(true); // a blocked abort must not keep the JVM alive on its own
        thread.start();
        TIMER.schedule(
                () -> {
                    if (!watched.returned.isDone()) {
                        overdue(what);
                    }
                    watched.settled.complete(null);
                },
                timeout.toMillis(),
                TimeUnit.MILLISECONDS);
        return watched;
    }

    /**
     * Waits for the abort {@code watched} up to the deadline: its result code, or empty when it has not returned
     * (once the policy has applied).
     */
    OptionalInt awaitWithin(Watched watched) {
        try {
            return OptionalInt.of(watched.returned.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            watched.settled.join();
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalInt.empty();
        } catch (ExecutionException e) {
            throw new IllegalStateException(watched.what + " failed", e.getCause());
        }
    }

    /** An abort under way: when it returned, and when it either returned or was found overdue. */
    record Watched(String what, CompletableFuture<Integer> returned, CompletableFuture<Void> settled) {}

    private void overdue(String what) {
        String message = what + " has not returned within " + timeout.toMillis() / 1000.0 + " s (" + TIMEOUT_PROPERTY
                + "); the device memory and connections of its communicator stay held";
        if (policy == Policy.EXIT) {
            LOG.log(
                    System.Logger.Level.ERROR,
                    message + "; the process exits with status " + EXIT_STATUS + " (" + POLICY_PROPERTY + "=exit)");
            halt.accept(EXIT_STATUS);
        } else {
            LOG.log(
                    System.Logger.Level.ERROR,
                    message + " until the process ends: restart it for a clean device, " + "or set " + POLICY_PROPERTY
                            + "=exit to have it exit with status " + EXIT_STATUS);
        }
    }
}
