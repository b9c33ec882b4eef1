package dev.collectives.backend.sim;

import java.util.function.BooleanSupplier;

/** Waiting on an object's monitor. */
final class Monitors {
    private Monitors() {}

    /**
     * Waits on {@code monitor}, which the caller holds, until {@code done}; an interrupt does not end the wait (the
     * awaited work finishes regardless) but is kept for the caller's thread.
     */
    static void awaitUninterruptibly(Object monitor, BooleanSupplier done) {
        boolean interrupted = false;
        while (!done.getAsBoolean()) {
            try {
                monitor.wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits on {@code monitor}, which the caller holds, until {@code done} or {@code deadline} (System.nanoTime);
     * an interrupt ends the wait early but is kept for the caller's thread.
     */
    static void awaitUntil(Object monitor, BooleanSupplier done, long deadline) {
        while (!done.getAsBoolean()) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return;
            }
            try {
                monitor.wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
