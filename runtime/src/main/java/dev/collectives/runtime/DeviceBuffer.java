package dev.collectives.runtime;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.rules.Message;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Set;

/**
 * Typed device memory: {@code count} elements of {@code type} at {@code headOffset()} bytes from the head of a
 * root allocation. Slices and views share the allocation; only the root buffer owns it, and closing the root
 * frees it. Host copies are synchronous and not ordered with stream work: synchronize the stream first.
 */
public final class DeviceBuffer implements AutoCloseable {
    private final DeviceMemory memory;
    private final long offset;
    private final DataType type;
    private final long count;
    private final boolean owner;

    private DeviceBuffer(DeviceMemory memory, long offset, DataType type, long count, boolean owner) {
        if (count < 0 || offset < 0 || offset + count * type.size() > memory.size()) {
            throw CollectivesException.violation(
                    Message.R7_OUTSIDE, memory.rank(), "buffer", count, type, offset, memory);
        }
        this.memory = memory;
        this.offset = offset;
        this.type = type;
        this.count = count;
        this.owner = owner;
    }

    /** The root buffer over a whole allocation: {@code count} elements of {@code type}; it owns the memory. */
    public static DeviceBuffer root(DeviceMemory memory, DataType type, long count) {
        return new DeviceBuffer(memory, 0, type, count, true);
    }

    /**
     * A buffer over memory owned elsewhere (see {@link Communicator#wrap}): {@code count} elements of {@code type}
     * at {@code headOffset} bytes from the allocation's head. It owns nothing: {@code close()} frees nothing.
     */
    public static DeviceBuffer wrapped(DeviceMemory memory, long headOffset, DataType type, long count) {
        return new DeviceBuffer(memory, headOffset, type, count, false);
    }

    /** The device address of element 0. */
    public long address() {
        return memory.address() + offset;
    }

    /** Bytes from the head of the root allocation (R2 compares this across ranks). */
    public long headOffset() {
        return offset;
    }

    /** The element type. */
    public DataType type() {
        return type;
    }

    /** The number of elements. */
    public long count() {
        return count;
    }

    /** {@code count() × type().size()}. */
    public long sizeBytes() {
        return count * type.size();
    }

    /** How the root allocation was made (R3, R9, R11). */
    public Allocator allocator() {
        return memory.allocator();
    }

    /** The root allocation this buffer lies in. */
    public DeviceMemory memory() {
        return memory;
    }

    /** Whether this buffer owns its allocation (slices and views do not). */
    public boolean isRoot() {
        return owner;
    }

    /**
     * Names this buffer's memory as {@code buffer} of {@code pipeline} in every message that shows it (a host copy
     * that races stream work, a free that a graph or a registration refuses), instead of by its address alone.
     * Generated pipelines name each buffer they allocate. Returns this buffer.
     */
    public DeviceBuffer named(String pipeline, String buffer) {
        memory.describeAs("buffer " + buffer + " of " + pipeline);
        return this;
    }

    /** {@code elementCount} elements starting {@code elementOffset} elements in, same type. */
    public DeviceBuffer slice(long elementOffset, long elementCount) {
        return view(elementOffset * type.size(), type, elementCount);
    }

    /** From {@code elementOffset} to the end. */
    public DeviceBuffer at(long elementOffset) {
        return slice(elementOffset, count - elementOffset);
    }

    /** {@code count} elements of {@code viewType} at {@code byteOffset} bytes into this buffer. */
    public DeviceBuffer view(long byteOffset, DataType viewType, long viewCount) {
        if (byteOffset < 0 || viewCount < 0 || byteOffset + viewCount * viewType.size() > sizeBytes()) {
            throw CollectivesException.violation(
                    Message.R7_OUTSIDE, memory.rank(), "view", viewCount, viewType, byteOffset, this);
        }
        return new DeviceBuffer(memory, offset + byteOffset, viewType, viewCount, false);
    }

    // ---- host copies --------------------------------------------------------------------------------------
    // Typed arrays carry only the element types of their Java type (R13: a float[] into INT32 memory would store
    // float bits as integers); byte[] and ByteBuffer copy raw bytes of any type.

    private static final Set<DataType> ANY = EnumSet.allOf(DataType.class);
    private static final Set<DataType> HALVES = EnumSet.of(DataType.FLOAT16, DataType.BFLOAT16);
    private static final Set<DataType> INT32S = EnumSet.of(DataType.INT32, DataType.UINT32);
    private static final Set<DataType> INT64S = EnumSet.of(DataType.INT64, DataType.UINT64);
    private static final Set<DataType> FLOAT32S = EnumSet.of(DataType.FLOAT32);
    private static final Set<DataType> FLOAT64S = EnumSet.of(DataType.FLOAT64);

    /** Copies {@code src} into the start of this buffer, synchronously; the buffer must be of any type (raw bytes). */
    public void copyFromHost(byte[] src) {
        copyIn(ByteBuffer.wrap(src), "byte[]", ANY);
    }

    /**
     * Copies {@code src} into the start of this buffer, synchronously; the buffer must be of FLOAT16 or BFLOAT16 (the
     * raw bits).
     */
    public void copyFromHost(short[] src) {
        ByteBuffer host = host(2L * src.length);
        host.asShortBuffer().put(src);
        copyIn(host, "short[]", HALVES);
    }

    /**
     * Copies {@code src} into the start of this buffer, synchronously; the buffer must be of FLOAT16 or BFLOAT16 (the
     * raw bits).
     */
    public void copyFromHost(char[] src) {
        ByteBuffer host = host(2L * src.length);
        host.asCharBuffer().put(src);
        copyIn(host, "char[]", HALVES);
    }

    /** Copies {@code src} into the start of this buffer, synchronously; the buffer must be of INT32 or UINT32. */
    public void copyFromHost(int[] src) {
        ByteBuffer host = host(4L * src.length);
        host.asIntBuffer().put(src);
        copyIn(host, "int[]", INT32S);
    }

    /** Copies {@code src} into the start of this buffer, synchronously; the buffer must be of INT64 or UINT64. */
    public void copyFromHost(long[] src) {
        ByteBuffer host = host(8L * src.length);
        host.asLongBuffer().put(src);
        copyIn(host, "long[]", INT64S);
    }

    /** Copies {@code src} into the start of this buffer, synchronously; the buffer must be of FLOAT32. */
    public void copyFromHost(float[] src) {
        ByteBuffer host = host(4L * src.length);
        host.asFloatBuffer().put(src);
        copyIn(host, "float[]", FLOAT32S);
    }

    /** Copies {@code src} into the start of this buffer, synchronously; the buffer must be of FLOAT64. */
    public void copyFromHost(double[] src) {
        ByteBuffer host = host(8L * src.length);
        host.asDoubleBuffer().put(src);
        copyIn(host, "double[]", FLOAT64S);
    }

    /** Copies {@code src.remaining()} bytes; the buffer's position is left unchanged. */
    public void copyFromHost(ByteBuffer src) {
        copyIn(src.duplicate(), "ByteBuffer", ANY);
    }

    /** Copies the start of this buffer into {@code dst}, synchronously; the buffer must be of any type (raw bytes). */
    public void copyToHost(byte[] dst) {
        copyOut(ByteBuffer.wrap(dst), "byte[]", ANY);
    }

    /**
     * Copies the start of this buffer into {@code dst}, synchronously; the buffer must be of a 16-bit type
     * (INT16-sized: FLOAT16, BFLOAT16).
     */
    public void copyToHost(short[] dst) {
        copyOut(host(2L * dst.length), "short[]", HALVES).asShortBuffer().get(dst);
    }

    /**
     * Copies the start of this buffer into {@code dst}, synchronously; the buffer must be of a 16-bit type (FLOAT16,
     * BFLOAT16).
     */
    public void copyToHost(char[] dst) {
        copyOut(host(2L * dst.length), "char[]", HALVES).asCharBuffer().get(dst);
    }

    /** Copies the start of this buffer into {@code dst}, synchronously; the buffer must be of INT32 or UINT32. */
    public void copyToHost(int[] dst) {
        copyOut(host(4L * dst.length), "int[]", INT32S).asIntBuffer().get(dst);
    }

    /** Copies the start of this buffer into {@code dst}, synchronously; the buffer must be of INT64 or UINT64. */
    public void copyToHost(long[] dst) {
        copyOut(host(8L * dst.length), "long[]", INT64S).asLongBuffer().get(dst);
    }

    /** Copies the start of this buffer into {@code dst}, synchronously; the buffer must be of FLOAT32. */
    public void copyToHost(float[] dst) {
        copyOut(host(4L * dst.length), "float[]", FLOAT32S).asFloatBuffer().get(dst);
    }

    /** Copies the start of this buffer into {@code dst}, synchronously; the buffer must be of FLOAT64. */
    public void copyToHost(double[] dst) {
        copyOut(host(8L * dst.length), "double[]", FLOAT64S).asDoubleBuffer().get(dst);
    }

    /** Fills {@code dst.remaining()} bytes; the buffer's position is left unchanged. */
    public void copyToHost(ByteBuffer dst) {
        copyOut(dst, "ByteBuffer", ANY);
    }

    /** The bytes of a typed host array, in the device's (native) byte order. */
    private static ByteBuffer host(long bytes) {
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a host copy moves at most " + Integer.MAX_VALUE + " bytes at once, not "
                    + bytes + "; copy the array in parts through slices");
        }
        return ByteBuffer.allocate((int) bytes).order(ByteOrder.nativeOrder());
    }

    private void copyIn(ByteBuffer src, String hostType, Set<DataType> holds) {
        checkCopy(src.remaining(), "copyFromHost(" + hostType + ")", holds);
        memory.copyIn(offset, src);
    }

    private ByteBuffer copyOut(ByteBuffer dst, String hostType, Set<DataType> holds) {
        checkCopy(dst.remaining(), "copyToHost(" + hostType + ")", holds);
        memory.copyOut(offset, dst.duplicate());
        return dst;
    }

    private void checkCopy(long bytes, String copy, Set<DataType> holds) {
        if (!holds.contains(type)) {
            throw CollectivesException.violation(
                    Message.R13_HOST_ARRAY_TYPE, memory.rank(), copy, this, holds, type, type);
        }
        if (memory.isClosed()) {
            throw CollectivesException.usage(memory.rank(), "copy on " + this + " after its memory was freed");
        }
        if (bytes > sizeBytes()) {
            throw new IllegalArgumentException("copy of " + bytes + " bytes exceeds " + this);
        }
    }

    /** Frees the allocation if this is its root buffer; a no-op on slices, views and wrapped buffers. Idempotent. */
    @Override
    public void close() {
        if (owner) {
            memory.close();
        }
    }

    @Override
    public String toString() {
        return count + " x " + type + " at 0x" + Long.toHexString(address()) + " (+" + offset + " in " + memory.origin()
                + " allocation of " + memory.size() + " bytes)";
    }
}
