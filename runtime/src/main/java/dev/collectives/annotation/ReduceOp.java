package dev.collectives.annotation;

/** Reduction operators, with the library's enum values ({@code mcclRedOp_t} / {@code ncclRedOp_t}). */
public enum ReduceOp {
    SUM(0),
    PROD(1),
    MAX(2),
    MIN(3),
    AVG(4);

    private final int code;

    ReduceOp(int code) {
        this.code = code;
    }

    /** The value of {@code mcclRedOp_t} / {@code ncclRedOp_t}. */
    public int code() {
        return code;
    }

    /** R13: AVG divides, which only floating-point types do meaningfully. */
    public boolean suits(DataType type) {
        return this != AVG || type.isFloatingPoint();
    }

    public static ReduceOp fromCode(int code) {
        for (ReduceOp op : values()) {
            if (op.code == code) {
                return op;
            }
        }
        throw new IllegalArgumentException("no reduce op with code " + code);
    }
}
