package dev.collectives.tools.differential;

import dev.collectives.annotation.DataType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * What a rank read back from one buffer: its bytes, in the device's (native) byte order, and the element type of each
 * byte range of them, as the views laid out in a block give them.
 *
 * @param name     the buffer and when it was read ("call 2, s1(3, 17): b0")
 * @param segments the typed ranges, in order, covering the bytes
 * @param bytes    the contents
 */
record Output(String name, List<Segment> segments, byte[] bytes) {
    Output {
        segments = List.copyOf(segments);
    }

    /**
     * {@code length} bytes from {@code offset} holding elements of {@code type}.
     *
     * @param offset byte offset in the buffer
     * @param length bytes
     * @param type   element type
     */
    record Segment(long offset, long length, DataType type) {}

    /** Float32 values read back by an example. */
    static Output ofFloats(String name, float[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(4 * values.length).order(ByteOrder.nativeOrder());
        bytes.asFloatBuffer().put(values);
        return new Output(name, List.of(new Segment(0, bytes.capacity(), DataType.FLOAT32)), bytes.array());
    }

    /** The SHA-256 of the bytes, in hex: what the result files show of each buffer. */
    String sha256() {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
