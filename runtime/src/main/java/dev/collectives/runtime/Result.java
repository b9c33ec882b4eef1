package dev.collectives.runtime;

/** {@code mcclResult_t} / {@code ncclResult_t} values (the values both libraries return). */
public enum Result {
    SUCCESS(0),
    UNHANDLED_DEVICE_ERROR(1),
    SYSTEM_ERROR(2),
    INTERNAL_ERROR(3),
    INVALID_ARGUMENT(4),
    INVALID_USAGE(5),
    REMOTE_ERROR(6),
    IN_PROGRESS(7);

    private final int code;

    Result(int code) {
        this.code = code;
    }

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
