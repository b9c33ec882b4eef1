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
     * Beats on {@code channel} every {@link Timeouts#beatInterval()} of the heartbeat timeout that the other end
     * declares this one dead after ({@code timeouts}), saying {@code rank} (the sender's), and counts each beat sent
     * in {@code sent} where given.
     */
    static Beat start(Channel channel, int rank, Timeouts timeouts, LongAdder sent) {
        byte[] bytes = JobToken.ints(rank);
        return start(channel, () -> bytes, timeouts, sent);
    }

    /**
     * Beats on {@code channel} as {@link #start(Channel, int, Timeouts, LongAdder)} does, each beat saying
     * {@code rank} and where it stands ({@code progress}, read at each beat).
     */
    static Beat start(Channel channel, int rank, Supplier<Progress> progress, Timeouts timeouts) {
        byte[] rankBytes = JobToken.ints(rank);
        return start(
                channel,
                () -> {
                    byte[] place = progress.get().encode();
                    byte[] bytes = Arrays.copyOf(rankBytes, rankBytes.length + place.length);
                    System.arraycopy(place, 0, bytes, rankBytes.length, place.length);
                    return bytes;
                },
                timeouts,
                null);
    }

    /**
     * At a fixed rate: a beat that went out late (its process starved of a core) is followed by the next at once, not
     * a whole interval later, so that one late beat does not add an interval to the silence the server sees.
     */
    private static Beat start(Channel channel, Supplier<byte[]> bytes, Timeouts timeouts, LongAdder sent) {
        Duration every = timeouts.beatInterval();
        Runnable beat = () -> {
            if (channel.beat(bytes.get(), Deadline.after(timeouts.heartbeat())) && sent != null) {
                sent.increment();
            }
        };
        return new Beat(BEATER.scheduleAtFixedRate(beat, 0, every.toMillis(), TimeUnit.MILLISECONDS));
    }
}
