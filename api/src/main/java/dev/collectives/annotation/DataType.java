package dev.collectives.annotation;

/** Element types of NCCL/MCCL, with the library's enum values ({@code ncclDataType_t}/{@code mcclDataType_t}). */
public enum DataType {
    /** 8-bit signed integer ({@code ncclInt8}/{@code mcclInt8}). */
    INT8(0, 1, false),
    /** 8-bit unsigned integer; the default type of a buffer declared without one (bytes). */
    UINT8(1, 1, false),
    /** 32-bit signed integer. */
    INT32(2, 4, false),
    /** 32-bit unsigned integer. */
    UINT32(3, 4, false),
    /** 64-bit signed integer. */
    INT64(4, 8, false),
    /** 64-bit unsigned integer. */
    UINT64(5, 8, false),
    /** IEEE half precision. */
    FLOAT16(6, 2, true),
    /** IEEE single precision ({@code float}). */
    FLOAT32(7, 4, true),
    /** IEEE double precision ({@code double}). */
    FLOAT64(8, 8, true),
    /** bfloat16: float32's exponent, 8 bits of significand. */
    BFLOAT16(9, 2, true),
    /** 8-bit float, 4 exponent and 3 mantissa bits; saturates at its largest finite value. */
    FP8_E4M3(10, 1, true),
    /** 8-bit float, 5 exponent and 2 mantissa bits. */
    FP8_E5M2(11, 1, true);

    private final int code;
    private final int size;
    private final boolean floatingPoint;

    DataType(int code, int size, boolean floatingPoint) {
        this.code = code;
        this.size = size;
        this.floatingPoint = floatingPoint;
    }

    /** The value of {@code ncclDataType_t}/{@code mcclDataType_t}. */
    public int code() {
        return code;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    /** Whether the type is a floating-point one (FLOAT16 to FP8_E5M2). */
    public boolean isFloatingPoint() {
        return floatingPoint;
    }

    /** The type whose library value is {@code code}. */
    public static DataType fromCode(int code) {
        for (DataType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("no data type with code " + code);
    }
}
