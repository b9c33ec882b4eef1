package dev.collectives.runtime;

/** {@code ncclResult_t}/{@code mcclResult_t} values (the values both libraries return). */
public enum Result {
    /** The call succeeded. */
    SUCCESS(0),
    /** A CUDA/MUSA call failed. */
    UNHANDLED_DEVICE_ERROR(1),
    /** A system call failed. */
    SYSTEM_ERROR(2),
    /** The library failed internally. */
    INTERNAL_ERROR(3),
    /** An argument was wrong. */
    INVALID_ARGUMENT(4),
    /** The call was used wrongly. */
    INVALID_USAGE(5),
    /** Another rank failed. */
    REMOTE_ERROR(6),
    /** A non-blocking call has not finished yet. */
    IN_PROGRESS(7);

    private final int code;

    Result(int code) {
        this.code = code;
    }

    /** The value the libraries return. */
    public int code() {
        return code;
    }

    /** The result for a library return code; unknown codes map to INTERNAL_ERROR. */
    public static Result of(int code) {
        for (Result r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return INTERNAL_ERROR;
    }
}
