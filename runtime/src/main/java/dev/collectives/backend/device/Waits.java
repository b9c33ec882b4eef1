package dev.collectives.backend.device;

import dev.collectives.runtime.bootstrap.Setting;
import dev.collectives.runtime.internal.SettingValues;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How long this backend waits on the library, and the clock it reads: where native aborts run under their deadline
 * ({@link AbortWatch}), and how long a wait on the library ({@link InProgress}: a stream synchronize, a call that
 * answered "in progress") polls before the communicator is aborted as stalled.
 *
 * @param aborts           where native aborts run, off the caller's thread
 * @param syncTimeoutNanos how long a wait on the library lasts ({@code collectives.device.syncTimeoutSeconds}); a
 *                         communicator formed through a bootstrap waits for its ranks as long as the bootstrap does
 * @param clock            nanoseconds, as {@link System#nanoTime()} counts them
 */
record Waits(AbortWatch aborts, long syncTimeoutNanos, LongSupplier clock) {
    /** Seconds a wait on the library lasts before it aborts the communicator (default 300). */
    static final String SYNC_TIMEOUT_PROPERTY = Setting.DEVICE_SYNC_TIMEOUT.property;

    /** What the system properties ask for, on the system's clock. */
    static final Waits SYSTEM = new Waits(
            AbortWatch.fromSystemProperties(),
            SettingValues.number(Setting.DEVICE_SYNC_TIMEOUT, 300L) * 1_000_000_000L,
            System::nanoTime);

    /** The synchronize timeout in whole seconds, as messages name it. */
    long syncTimeoutSeconds() {
        return syncTimeoutNanos / 1_000_000_000L;
    }

    Duration syncTimeout() {
        return Duration.ofNanos(syncTimeoutNanos);
    }
}
