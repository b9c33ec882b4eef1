package dev.collectives.runtime.spi;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * {@link System#nanoTime()} as a daemon thread read it last, at most a millisecond ago, while some flight recorder
 * is on: an entry's time then costs a field read, where {@code System.nanoTime()} itself costs 20 ns on a quiet
 * host and 60 ns or more on a loaded virtual one, more than a whole entry may.
 */
final class CoarseClock {
    /** How often the ticker reads the clock. */
    static final long TICK_NANOS = 1_000_000;

    private static volatile long now = System.nanoTime();
    /** The ticking thread while one runs; guarded by the class's monitor. */
    private static Thread ticker;

    private CoarseClock() {}

    /** The time, as {@link System#nanoTime()} said it at most a tick ago while the ticker runs. */
    static long nanos() {
        return now;
    }

    /** Starts the ticker unless it runs; it ends at the first tick where {@code needed} answers false. */
    static synchronized void start(BooleanSupplier needed) {
        if (ticker != null) {
            return;
        }
        now = System.nanoTime();
        ticker = new Thread(() -> tick(needed), "collectives-flight-clock");
        ticker.setDaemon(true);
        ticker.start();
    }

    private static void tick(BooleanSupplier needed) {
        while (true) {
            LockSupport.parkNanos(TICK_NANOS);
            now = System.nanoTime();
            synchronized (CoarseClock.class) {
                if (!needed.getAsBoolean()) {
                    ticker = null;
                    return;
                }
            }
        }
    }
}
