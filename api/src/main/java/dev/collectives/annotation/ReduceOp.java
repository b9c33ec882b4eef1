package dev.collectives.annotation;

/** Reduction operators, with the library's enum values ({@code ncclRedOp_t}/{@code mcclRedOp_t}). */
public enum ReduceOp {
    /** Sum; integers wrap. */
    SUM(0),
    /** Product; integers wrap. */
    PROD(1),
    /** Maximum (a NaN loses to a number, as with {@code fmaxf}). */
    MAX(2),
    /** Minimum (a NaN loses to a number, as with {@code fminf}). */
    MIN(3),
    /** Average: each value divided by the rank count, then summed; floating-point types only. */
    AVG(4);

    private final int code;

    ReduceOp(int code) {
        this.code = code;
    }

    /** The value of {@code ncclRedOp_t}/{@code mcclRedOp_t}. */
    public int code() {
        return code;
    }

    /** R13: AVG divides, which only floating-point types do meaningfully. */
    public boolean suits(DataType type) {
        return this != AVG || type.isFloatingPoint();
    }

    /** The operator whose library value is {@code code}. */
    public static ReduceOp fromCode(int code) {
        for (ReduceOp op : values()) {
            if (op.code == code) {
                return op;
            }
        }
        throw new IllegalArgumentException("no reduce op with code " + code);
    }
}
