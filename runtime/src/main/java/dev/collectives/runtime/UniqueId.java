package dev.collectives.runtime;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The unique id from which the ranks of a job form their communicator ({@code ncclUniqueId}/{@code mcclUniqueId}):
 * {@value #BYTES} bytes that one rank's library makes ({@code ncclGetUniqueId}) and every rank passes to
 * {@code ncclCommInitRank}. Here it carries an id across library boundaries: one made by CuPy or PyTorch for Java
 * ranks to join with ({@link Bootstrap.Builder#uniqueId}, or {@code COLLECTIVES_UNIQUE_ID} as hex), or one made by
 * {@code Backend.uniqueId()} for peers of another library. Its hex text is {@value #HEX_DIGITS} digits, two per
 * byte, in order.
 */
public final class UniqueId {
    /** Bytes of a unique id: {@code NCCL_UNIQUE_ID_BYTES}, the same for MCCL. */
    public static final int BYTES = 128;
    /** Hex digits of its text form. */
    public static final int HEX_DIGITS = 2 * BYTES;
    /** The variable that gives the ranks of a job the id as hex: see {@link Bootstrap}. */
    public static final String VARIABLE = "COLLECTIVES_UNIQUE_ID";
    /** The system property that does the same. */
    public static final String PROPERTY = "collectives.uniqueId";

    private static final HexFormat HEX = HexFormat.of();

    private final byte[] bytes;

    private UniqueId(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * The id of these {@value #BYTES} bytes (copied), e.g. {@code bytes(cupy.cuda.nccl.get_unique_id())} written to
     * a file; throws {@link IllegalArgumentException} for another length.
     */
    public static UniqueId of(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException(
                    "a unique id is " + BYTES + " bytes (ncclUniqueId); got " + bytes.length + " bytes");
        }
        return new UniqueId(bytes.clone());
    }

    /**
     * The id of {@code hex}, {@value #HEX_DIGITS} hex digits in either case, surrounding white space ignored (what
     * {@link #hex()} writes, or Python's {@code bytes(uid).hex()}); throws {@link IllegalArgumentException} naming
     * the length or the first character that is not a hex digit.
     */
    public static UniqueId parse(String hex) {
        String digits = hex.strip();
        for (int i = 0; i < digits.length(); i++) {
            if (Character.digit(digits.charAt(i), 16) < 0) {
                throw new IllegalArgumentException("a unique id is written as " + HEX_DIGITS + " hex digits; "
                        + "character " + (i + 1) + " is '" + digits.charAt(i) + "'");
            }
        }
        if (digits.length() != HEX_DIGITS) {
            throw new IllegalArgumentException("a unique id is written as " + HEX_DIGITS + " hex digits (" + BYTES
                    + " bytes); got " + digits.length() + " digits"
                    + (digits.length() == BYTES ? ": is it the bytes themselves, not their hex?" : ""));
        }
        return new UniqueId(HEX.parseHex(digits));
    }

    /** A copy of the {@value #BYTES} bytes, what {@code ncclCommInitRank} takes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The {@value #HEX_DIGITS} lower-case hex digits that {@link #parse} reads back. */
    public String hex() {
        return HEX.formatHex(bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof UniqueId id && Arrays.equals(bytes, id.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Its first 8 bytes only, enough to tell ids apart in a log: the full id lets anyone join the job. */
    @Override
    public String toString() {
        return "unique id " + HEX.formatHex(bytes, 0, 8) + "...";
    }
}
