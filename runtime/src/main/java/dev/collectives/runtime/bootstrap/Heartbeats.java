package dev.collectives.runtime.bootstrap;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The heartbeats of this process: one daemon thread that beats on every control connection that asks for it, and
 * does nothing else, so that a process busy elsewhere (its ranks' work, a long operation, a garbage collection short
 * of the timeout) still beats. A beat that cannot go out within the timeout (the other end reads nothing) closes
 * its connection, whose reader then hears that the other end is gone or stuck.
 */
final class Heartbeats {
    private static final ScheduledThreadPoolExecutor BEATER =
            new ScheduledThreadPoolExecutor(1, TcpAdmission.smallDaemonThreads("collectives-heartbeats"));

    static {
        BEATER.setRemoveOnCancelPolicy(true); // a job's connections come and go: keep no cancelled beats
    }

    private Heartbeats() {}

    /** A connection's beats, until {@link #close()}. */
    static final class Beat implements AutoCloseable {
        private final ScheduledFuture<?> schedule;

        private Beat(ScheduledFuture<?> schedule) {
            this.schedule = schedule;
        }

        @Override
        public void close() {
            schedule.cancel(false);
        }
    }

    /**
     * The interval at which a connection beats, where the other end declares it dead after {@code timeout} of
     * silence: a sixth of it, so that five beats in a row may be late or lost before it is.
     */
    static Duration interval(Duration timeout) {
        return Duration.ofMillis(Math.max(1, timeout.toMillis() / 6));
    }

    /**
     * Beats on {@code channel} every {@link #interval} of {@code timeout}, saying {@code rank} (the sender's), and
     * counts each beat sent in {@code sent} where given.
     */
    static Beat start(Channel channel, int rank, Duration timeout, LongAdder sent) {
        byte[] bytes = JobToken.ints(rank);
        return start(channel, () -> bytes, timeout, sent);
    }

    /**
     * Beats on {@code channel} as {@link #start(Channel, int, Duration, LongAdder)} does, each beat saying
     * {@code rank} and where it stands ({@code progress}, read at each beat).
     */
    static Beat start(Channel channel, int rank, Supplier<Progress> progress, Duration timeout) {
        byte[] rankBytes = JobToken.ints(rank);
        return start(
                channel,
                () -> {
                    byte[] place = progress.get().encode();
                    byte[] bytes = Arrays.copyOf(rankBytes, rankBytes.length + place.length);
                    System.arraycopy(place, 0, bytes, rankBytes.length, place.length);
                    return bytes;
                },
                timeout,
                null);
    }

    private static Beat start(Channel channel, Supplier<byte[]> bytes, Duration timeout, LongAdder sent) {
        Duration every = interval(timeout);
        Runnable beat = () -> {
            if (channel.beat(bytes.get(), Deadline.after(timeout)) && sent != null) {
                sent.increment();
            }
        };
        return new Beat(BEATER.scheduleWithFixedDelay(beat, 0, every.toMillis(), TimeUnit.MILLISECONDS));
    }
}
