package dev.collectives.runtime;

/**
 * A failure to form a multi-process job: bad settings, no rank 0 within the deadline, a peer with the wrong job
 * token, a duplicate rank, a peer gone. Messages start with {@code [bootstrap]}, then the rank that saw it, and
 * name the rendezvous address and the other ranks involved. The control plane makes them; applications catch them.
 */
public final class BootstrapException extends CollectivesException {
    private static final long serialVersionUID = 1L;

    /** Whether the job goes on as it was: a growth that failed leaves its rendezvous usable. */
    private final boolean jobGoesOn;

    private BootstrapException(Result result, int rank, String message, Throwable cause) {
        this(result, rank, message, cause, false);
    }

    private BootstrapException(Result result, int rank, String message, Throwable cause, boolean jobGoesOn) {
        super(null, result, rank, "[bootstrap] " + (rank >= 0 ? "rank " + rank + ": " : "") + message, cause);
        this.jobGoesOn = jobGoesOn;
    }

    /**
     * Whether the job goes on as it was, its rendezvous usable: a growth failed ({@link Communicator#grow}) on every
     * member alike. Any other failure ended the rendezvous on this rank.
     */
    public boolean jobGoesOn() {
        return jobGoesOn;
    }

    /** A growth of the job failed on every member, which go on at the job's size. */
    public static BootstrapException growthFailed(int rank, String message) {
        return new BootstrapException(Result.REMOTE_ERROR, rank, message, null, true);
    }

    /** Settings that cannot work (missing or contradictory variables, malformed addresses). */
    public static BootstrapException settings(int rank, String message) {
        return new BootstrapException(Result.INVALID_USAGE, rank, message, null);
    }

    /** This process could not complete a step: a deadline passed, a connection failed, a peer misbehaved. */
    public static BootstrapException failed(int rank, String message, Throwable cause) {
        return new BootstrapException(Result.SYSTEM_ERROR, rank, message, cause);
    }

    /** Another rank ended the job and said why. */
    public static BootstrapException remote(int rank, String message) {
        return new BootstrapException(Result.REMOTE_ERROR, rank, message, null);
    }
}
