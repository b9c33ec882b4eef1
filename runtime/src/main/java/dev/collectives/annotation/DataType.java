package dev.collectives.annotation;

/** Element types of MCCL/NCCL, with the library's enum values ({@code mcclDataType_t} / {@code ncclDataType_t}). */
public enum DataType {
    INT8(0, 1, false),
    UINT8(1, 1, false),
    INT32(2, 4, false),
    UINT32(3, 4, false),
    INT64(4, 8, false),
    UINT64(5, 8, false),
    FLOAT16(6, 2, true),
    FLOAT32(7, 4, true),
    FLOAT64(8, 8, true),
    BFLOAT16(9, 2, true),
    FP8_E4M3(10, 1, true),
    FP8_E5M2(11, 1, true);

    private final int code;
    private final int size;
    private final boolean floatingPoint;

    DataType(int code, int size, boolean floatingPoint) {
        this.code = code;
        this.size = size;
        this.floatingPoint = floatingPoint;
    }

    /** The value of {@code mcclDataType_t} / {@code ncclDataType_t}. */
    public int code() {
        return code;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    public boolean isFloatingPoint() {
        return floatingPoint;
    }

    public static DataType fromCode(int code) {
        for (DataType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("no data type with code " + code);
    }
}
