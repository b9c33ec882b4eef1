package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Progress;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.nio.ByteBuffer;

/**
 * The heartbeats of a job's server ({@link ServedJob}), on its loop thread: each member's beats taken in, every beat interval, a beat to each member
 * that nothing waits for (any message is a sign of life), and the members that read nothing of what waits for them for
 * the heartbeat timeout are fenced. A member silent past the heartbeat timeout is fenced as soon as it passes it (the
 * check is timed to the least recently heard member's deadline), so that detection takes the timeout, not the timeout
 * and a beat interval.
 */
final class ServedBeats {
    private final ServedJob job;

    ServedBeats(ServedJob job) {
        this.job = job;
    }

    /** Every interval: beats to each member that nothing waits for, and fences those silent or not reading. */
    void beat() {
        if (job.closed || job.fatal != null) {
            return;
        }
        long now = System.nanoTime();
        long stuck = job.heartbeatTimeout.toNanos();
        job.roster
                .slots()
                .filter(slot -> !slot.connection.isClosed() && slot.why == null)
                .forEach(slot -> {
                    if (slot.connection.stuckFor(stuck, now)) {
                        job.fence(
                                slot,
                                Cause.Kind.SILENT,
                                "it read nothing of what the server sent it for "
                                        + Settings.formatDuration(job.heartbeatTimeout) + " (it stopped reading)");
                    } else if (slot.connection.idle()) {
                        slot.connection.send(FrameType.HEARTBEAT, 0, JobToken.ints(-1));
                        job.beatsSent.increment();
                    }
                });
        job.loop.after(job.timeouts.beatInterval(), this::beat);
    }

    /** Fences the members silent past the heartbeat timeout, and looks again when the next one could be. */
    void watchSilence() {
        if (job.closed || job.fatal != null) {
            return;
        }
        String why = "no heartbeat for " + Settings.formatDuration(job.heartbeatTimeout);
        for (int rank : job.liveness.silent()) {
            job.fence(job.roster.slot(rank), Cause.Kind.SILENT, why);
        }
        job.loop.after(job.liveness.untilNextSilence().orElse(job.timeouts.beatInterval()), this::watchSilence);
    }

    /** A member's beat: it names the member's rank and carries where its communicators stand ({@link Progress}). */
    void heard(Slot slot, Channel.Frame frame) {
        job.beatsReceived.increment();
        ByteBuffer beat = ByteBuffer.wrap(frame.bytes());
        int says = beat.getInt();
        if (says != slot.rank) {
            job.fence(slot, Cause.Kind.MISBEHAVED, "it sent heartbeats for rank " + says);
            return;
        }
        Progress progress;
        try {
            progress = Progress.decode(beat);
        } catch (RuntimeException e) {
            job.fence(
                    slot, Cause.Kind.MISBEHAVED, "it sent a heartbeat whose progress does not read: " + e.getMessage());
            return;
        }
        job.observer.beat(slot.rank, progress, System.nanoTime());
    }
}
