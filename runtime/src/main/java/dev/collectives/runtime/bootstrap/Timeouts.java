package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import java.time.Duration;

/**
 * Every wait of the control plane, derived from the two that a user sets: the {@code operation} timeout (each
 * bootstrap step, {@code COLLECTIVES_BOOTSTRAP_TIMEOUT}) and the {@code heartbeat} timeout (how long a rank or the
 * server may be silent before it is declared dead, {@code COLLECTIVES_HEARTBEAT_TIMEOUT}). The waits depend on each
 * other (a rank that waits for news of a death must wait at least as long as the server takes to declare it), so they
 * are made here together and their invariants are checked when made. Public for the backends; not API.
 */
public final class Timeouts {
    /** How many beats go out per heartbeat timeout: so many in a row may be late or lost before a death. */
    static final int BEATS_PER_TIMEOUT = 6;
    /** The most a server takes to tell its members news that answers no operation (a death, the job's end). */
    private static final Duration NOTICE_CAP = Duration.ofSeconds(1);
    /**
     * How long after the first rank of a watched job stalls the others may take to say they stall too: the ranks'
     * deadlines differ by as much as their entries into the collective do.
     */
    private static final Duration STALL_GRACE = Duration.ofSeconds(2);
    /** The least a rank that lost its server keeps asking whether it was excluded. */
    private static final Duration FATE_WAIT_FLOOR = Duration.ofSeconds(10);
    /**
     * How long after joining a member counts as starting: its JVM compiles and collects while the job's first
     * operations run, and on a busy machine its beats may come late then.
     */
    private static final Duration STARTUP_WINDOW = Duration.ofSeconds(10);
    /** How much longer than the heartbeat timeout a starting member may be silent before it is declared dead. */
    private static final Duration STARTUP_EXTRA = Duration.ofSeconds(3);
    /** The most an unauthenticated connection may take to prove it holds the job token. */
    private static final Duration HANDSHAKE_CAP = Duration.ofSeconds(5);

    private final Duration operation;
    private final Duration heartbeat;

    /**
     * The waits of a job whose bootstrap steps each may take {@code operation}, and whose members and server are
     * declared dead after {@code heartbeat} of silence; fails where either is not positive.
     */
    public Timeouts(Duration operation, Duration heartbeat) {
        requirePositive(operation, "the bootstrap timeout");
        requirePositive(heartbeat, "the heartbeat timeout");
        this.operation = operation;
        this.heartbeat = heartbeat;
        check(beatInterval().compareTo(heartbeat) < 0, "the beat interval is below the heartbeat timeout");
        check(notice().compareTo(operation) <= 0, "telling news takes no longer than an operation may");
        check(
                verdictWait().compareTo(stallGrace().plus(notice())) > 0,
                "a rank that stalled waits past the stall grace and the verdict's telling");
        check(
                deathWait().compareTo(declaredDeadWithin().plus(notice())) >= 0,
                "a rank that waits for news of a death waits as long as the server takes to declare it and tell");
        check(
                verdictGrace().compareTo(declaredDeadWithin()) > 0,
                "a member waits past its deadline as long as the server takes to declare a silent rank dead");
        check(handshake().compareTo(operation) <= 0, "a handshake takes no longer than an operation may");
    }

    /** The timeouts of a job with the default heartbeat timeout and {@code operation} per step. */
    public static Timeouts withDefaultHeartbeat(Duration operation) {
        return new Timeouts(operation, Settings.DEFAULT_HEARTBEAT_TIMEOUT);
    }

    /** How long each bootstrap step may take. */
    public Duration operation() {
        return operation;
    }

    /** How long a member or the server may be silent before the other end declares it dead. */
    public Duration heartbeat() {
        return heartbeat;
    }

    /** How often a connection beats: {@link #BEATS_PER_TIMEOUT} times per heartbeat timeout (at least every 1 ms). */
    public Duration beatInterval() {
        return Duration.ofMillis(Math.max(1, heartbeat.toMillis() / BEATS_PER_TIMEOUT));
    }

    /**
     * How long a server may take to tell its members something that answers no operation (why the job ended, a
     * death), all of them together, and a member to tell the server where it stalled or why it ends: a second, or the
     * operation timeout where that is shorter. A member gone or stuck by then learns it otherwise.
     */
    public Duration notice() {
        return min(NOTICE_CAP, operation);
    }

    /** How long after the first rank of a watched job stalls the server waits for the others to say so too. */
    public Duration stallGrace() {
        return STALL_GRACE;
    }

    /**
     * How long a rank that timed out in the library waits for the server's verdict: its stall told, the grace for
     * the others, and the verdict told.
     */
    public Duration verdictWait() {
        return notice().plus(stallGrace()).plus(notice());
    }

    /**
     * How long after joining a member counts as starting ({@link #startupSilence()} applies): 10 s. Its JVM is young
     * then: its compiler threads and first collections compete with its beats for the cores.
     */
    public Duration startupWindow() {
        return STARTUP_WINDOW;
    }

    /**
     * How long a starting member (in its {@link #startupWindow()}) may be silent before the server declares it dead:
     * the heartbeat timeout and 3 s (a young JVM starved of a core was seen silent for up to a second). A rank frozen
     * that early is declared dead this much later; one frozen afterwards, after the heartbeat timeout.
     */
    public Duration startupSilence() {
        return heartbeat.plus(STARTUP_EXTRA);
    }

    /**
     * How long after a member's last sign of life the server has declared it dead at the latest: the silence allowed
     * (a starting member's, at most), and the interval at which the server looks for silent members.
     */
    public Duration declaredDeadWithin() {
        return startupSilence().plus(beatInterval());
    }

    /**
     * How long past an operation's deadline a member waits for the server's answer: long enough for the server to
     * declare a silent rank dead and say so, so that the member hears which rank is at fault rather than guessing.
     */
    public Duration verdictGrace() {
        return declaredDeadWithin().plus(notice());
    }

    /**
     * How long a rank whose library reported a failure waits for the rendezvous to name its cause: the server hears
     * of a dead process when its connection ends, which is as soon as the library does, and tells within
     * {@link #notice()}.
     */
    public Duration causeWait() {
        return notice();
    }

    /**
     * How long a rank that recovers from a death its library saw first waits for the job's news of it: the server
     * declares a silent rank dead within {@link #declaredDeadWithin()} and tells within {@link #notice()}.
     */
    public Duration deathWait() {
        return declaredDeadWithin().plus(notice());
    }

    /**
     * How long a rank that lost its server (its connection ended, or the server fell silent) keeps asking whether it
     * was excluded, so that a network that comes back in that time still tells it: the heartbeat timeout, at least
     * 10 s (a short timeout detects sooner; it need not cut short a cut-off rank's chance to learn its fate), at most
     * the operation timeout.
     */
    public Duration fateWait() {
        return min(operation, heartbeat.compareTo(FATE_WAIT_FLOOR) > 0 ? heartbeat : FATE_WAIT_FLOOR);
    }

    /** How long a connection to the server may take to prove it holds the job token. */
    public Duration handshake() {
        return min(HANDSHAKE_CAP, operation);
    }

    @Override
    public String toString() {
        return "operation timeout " + Settings.formatDuration(operation) + ", heartbeat timeout "
                + Settings.formatDuration(heartbeat);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static void requirePositive(Duration duration, String what) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw BootstrapException.settings(-1, what + " " + duration + " is not positive");
        }
    }

    private void check(boolean invariant, String what) {
        if (!invariant) {
            throw new IllegalStateException("inconsistent timeouts (" + this + "): " + what);
        }
    }
}
