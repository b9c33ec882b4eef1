package dev.collectives.tools.bench;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.OpKind.Extent;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.NativeLoop;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A collective the device benchmarks time, float32 and sum, at root {@link #ROOT_RANK} where it has one, with nccl-tests'
 * size and bandwidth rules: an op of the catalogue that the native baseline loops too. Options and results name it
 * as its {@code Communicator} method in lower case ("allreduce").
 */
record Op(OpKind kind) {
    /** The ops {@link NativeBaseline} has a loop of: every collective of the catalogue. */
    private static final List<OpKind> TIMED = NativeLoop.collectives();
    /** The root of a broadcast, reduce, gather or scatter. */
    static final int ROOT_RANK = 0;

    /**
     * The ops timed when none are named: those SHARP serves (allreduce, allgather, reducescatter), in the
     * catalogue's order, comma-separated as {@code --ops} takes them.
     */
    static String defaults() {
        return TIMED.stream()
                .filter(OpKind::sharpServed)
                .map(kind -> new Op(kind).name())
                .collect(Collectors.joining(","));
    }

    Op {
        if (!TIMED.contains(kind)) {
            throw new IllegalArgumentException(kind.annotation() + " has no native loop to time it against");
        }
    }

    /** "allreduce", as options and results name it. */
    String name() {
        return kind.method().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return name();
    }

    /** Whether a side holds {@code count × ranks} elements: a row's bytes are then gathered or scattered. */
    private boolean overRanks() {
        return kind.sendExtent() == Extent.COUNT_TIMES_RANKS || kind.recvExtent() == Extent.COUNT_TIMES_RANKS;
    }

    /** Elements per rank's call for a row of {@code bytes}: the buffer reduced, or gathered/scattered over all ranks. */
    long count(long bytes, int ranks) {
        return overRanks() ? bytes / 4 / ranks : bytes / 4;
    }

    /** The bytes a row names: the buffer reduced, or gathered/scattered over all ranks. */
    long totalBytes(long count, int ranks) {
        return overRanks() ? count * 4 * ranks : count * 4;
    }

    /**
     * busbw = algbw × this, as nccl-tests computes it: 2(n-1)/n for allreduce, 1 for broadcast and reduce (the
     * ops of {@code count} on both sides with one root), (n-1)/n for the others.
     */
    double busFactor(int ranks) {
        if (kind.reduces() && !kind.hasRoot() && kind.elementwise()) {
            return 2.0 * (ranks - 1) / ranks;
        }
        return kind.elementwise() ? 1.0 : (double) (ranks - 1) / ranks;
    }

    /** "sum" or "none", the redop column of nccl-tests. */
    String redop() {
        return kind.reduces() ? "sum" : "none";
    }

    /** Bytes of each rank's send and recv buffers for rows up to {@code maxBytes}. */
    long sendBytes(long maxBytes, int ranks) {
        return bufferBytes(kind.sendExtent(), maxBytes, ranks);
    }

    long recvBytes(long maxBytes, int ranks) {
        return bufferBytes(kind.recvExtent(), maxBytes, ranks);
    }

    /** A side of {@code count} elements holds a rank's share of a row that is gathered or scattered. */
    private long bufferBytes(Extent side, long maxBytes, int ranks) {
        return overRanks() && side == Extent.COUNT ? maxBytes / ranks : maxBytes;
    }

    /** One Java call of this op. */
    void call(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long count, Stream stream) {
        comm.call(kind, send, 0, recv, 0, count, DataType.FLOAT32, ReduceOp.SUM, ROOT_RANK, stream);
    }

    /** The native loop of this op on these buffers and stream, its arguments read once. */
    NativeLoop.Prepared prepareNative(
            Communicator comm, DeviceBuffer send, DeviceBuffer recv, long count, Stream stream) {
        return NativeLoop.prepare(comm, kind, send, recv, count, DataType.FLOAT32, ReduceOp.SUM, ROOT_RANK, stream);
    }

    /** {@code iters} calls of this op by the native loop, on the same communicator, buffers and stream. */
    void callNative(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long count, Stream stream, int iters) {
        NativeBaseline.of(comm).loop(kind, send, recv, count, DataType.FLOAT32, ReduceOp.SUM, ROOT_RANK, stream, iters);
    }

    /** The names {@code --op}/{@code --ops} take. */
    static List<String> names() {
        return TIMED.stream().map(kind -> new Op(kind).name()).toList();
    }

    /** Reads {@code --op}/{@code --ops} values by their names, in any case. */
    static final class Parser implements ITypeConverter<Op> {
        @Override
        public Op convert(String value) {
            return TIMED.stream()
                    .map(Op::new)
                    .filter(op -> op.name().equalsIgnoreCase(value))
                    .findFirst()
                    .orElseThrow(() -> new TypeConversionException(
                            "expected one of " + names() + " (case-insensitive) but was '" + value + "'"));
        }
    }

    /** The names {@code --op}/{@code --ops} take, for their help. */
    static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return names().iterator();
        }
    }
}
