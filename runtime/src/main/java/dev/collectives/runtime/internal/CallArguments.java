package dev.collectives.runtime.internal;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.OpKind.Extent;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import java.util.function.Predicate;

/**
 * The checks of a communicator call's arguments that every backend makes alike, before the call reaches the
 * library: counts (at least 0, R13) and their byte sizes (R13), the reduce op against the type (R13), roots and
 * peers in range, buffers of live memory of this rank with room for the call from its offset, send and recv in
 * place or apart (R7), and window heads aligned (R12). One per communicator; {@link #op} checks a whole op as its
 * {@link OpKind} describes it. It reads only {@link DeviceBuffer} and {@link DeviceMemory}, so it runs
 * without a device. Rule messages come from {@link Message}; the others are misuse of the API
 * ({@link CollectivesException#usage}).
 */
public final class CallArguments {
    private final int rank;
    private final int size;
    private final Predicate<DeviceMemory> own;
    private final String device;

    /**
     * @param own    whether memory is this rank's: made on (or wrapped from) its device by this backend
     * @param device how messages name that device, e.g. "rank 0's simulated device (device 0)"
     */
    public CallArguments(int rank, int size, Predicate<DeviceMemory> own, String device) {
        this.rank = rank;
        this.size = size;
        this.own = own;
        this.device = device;
    }

    /**
     * The sides of an op this rank passes to the library, once checked: each side's buffer and the element offset
     * the op starts at, or null and 0 where the op has no such side or this rank does not use it (a side only the
     * root uses, off the root).
     */
    public record Sides(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset) {}

    /** The device address {@code offset} elements of {@code type} into {@code buffer}; 0 where there is none. */
    public static long address(DeviceBuffer buffer, long offset, DataType type) {
        return buffer == null ? 0 : buffer.address() + offset * type.size();
    }

    /** The root or peer an op of {@code kind} takes from {@code rootOrPeer}: -1 where it has neither. */
    public static int peerOf(OpKind kind, int rootOrPeer) {
        return kind.hasRoot() || kind.isPointToPoint() ? rootOrPeer : -1;
    }

    /**
     * Checks one op of {@code kind} as every backend does, with NCCL's semantics: the count (R13), the reduce op
     * against the type where it reduces (R13), the root or peer {@code peer} where it has one, each side this rank
     * uses (live memory of this rank with room for the op from its offset), and that send and recv are in place or
     * apart (R7). A side only the root uses (a broadcast's or scatter's send, a reduce's or gather's recv) is neither
     * needed nor checked off the root: the library does not touch it there, so a rank may pass null.
     */
    public Sides op(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int peer) {
        check(kind, send, sendOffset, recv, recvOffset, count, type, op, peer);
        boolean sendUsed = kind.usesSend(rank, peer);
        boolean recvUsed = kind.usesRecv(rank, peer);
        return new Sides(
                sendUsed ? send : null, sendUsed ? sendOffset : 0, recvUsed ? recv : null, recvUsed ? recvOffset : 0);
    }

    /**
     * The checks of {@link #op}, allocating nothing: for a backend's hot path, which reads the sides this rank uses
     * from {@link OpKind#usesSend} and {@link OpKind#usesRecv}.
     */
    public void check(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int peer) {
        String call = kind.method();
        elements(call, count, type, false);
        if (kind.reduces()) {
            reduceOp(call, op, type);
        }
        if (kind.hasRoot() || kind.isPointToPoint()) {
            peer(call, kind.hasRoot() ? "root" : "peer", peer);
        }
        long sendElements = elements(call, count, type, kind.sendExtent() == Extent.COUNT_TIMES_RANKS);
        long recvElements = elements(call, count, type, kind.recvExtent() == Extent.COUNT_TIMES_RANKS);
        boolean sendUsed = kind.usesSend(rank, peer);
        boolean recvUsed = kind.usesRecv(rank, peer);
        if (sendUsed) {
            room(call, "send", send, sendOffset, sendElements, type);
        }
        if (recvUsed) {
            room(call, "recv", recv, recvOffset, recvElements, type);
        }
        if (sendUsed && recvUsed) {
            // addresses compared, shown as bytes from the send allocation's head, as bind shows them
            long sendStart = send.headOffset() + sendOffset * type.size();
            long recvStart = recv.address() + recvOffset * type.size() - (send.address() - send.headOffset());
            ByteRanges.requireInPlaceOrApart(
                    rank,
                    call,
                    inPlaceShift(kind, count) * type.size(),
                    sendStart,
                    sendStart + sendElements * type.size(),
                    recvStart,
                    recvStart + recvElements * type.size());
        }
    }

    /**
     * Where send starts, in elements after recv, in the op's in-place form: this rank's block of a recv of
     * {@code count × ranks} (allgather, gather), or its block of such a send (reducescatter, scatter), else the same
     * start.
     */
    private long inPlaceShift(OpKind kind, long count) {
        if (kind.sendExtent() == Extent.COUNT && kind.recvExtent() == Extent.COUNT_TIMES_RANKS) {
            return rank * count;
        }
        if (kind.sendExtent() == Extent.COUNT_TIMES_RANKS && kind.recvExtent() == Extent.COUNT) {
            return -rank * count;
        }
        return 0;
    }

    /**
     * The elements a call of {@code count} reaches into a buffer: {@code count}, or {@code count × size()} for
     * {@code perRank} (an allgather's recv, a reducescatter's send, both sides of an alltoall). R13 when the count is
     * negative or the bytes overflow a long.
     */
    public long elements(String call, long count, DataType type, boolean perRank) {
        if (count < 0) {
            throw CollectivesException.violation(Message.R13_NEGATIVE_COUNT, rank, call, count);
        }
        // the count's own bytes first, so that a call reports the same whichever of its sides is checked first
        overflow(call, count, type, 1);
        if (perRank) {
            overflow(call, count, type, size);
        }
        return perRank ? count * size : count;
    }

    private void overflow(String call, long count, DataType type, int ranks) {
        try {
            Math.multiplyExact(Math.multiplyExact(count, (long) type.size()), (long) ranks);
        } catch (ArithmeticException e) {
            throw CollectivesException.violation(
                    Message.R13_CALL_OVERFLOW, rank, call, count, type, ranks == 1 ? "" : " x " + ranks + " ranks");
        }
    }

    /** The bytes of {@code count} elements of {@code type}, checked as {@link #elements}. */
    public long bytes(String call, long count, DataType type) {
        return elements(call, count, type, false) * type.size();
    }

    /** R13: {@code op} suits {@code type} ({@code AVG} only on floating-point types). */
    public void reduceOp(String call, ReduceOp op, DataType type) {
        if (op == null) {
            throw CollectivesException.usage(rank, call + ": the reduce op is null");
        }
        if (!op.suits(type)) {
            throw CollectivesException.violation(Message.R13_REDUCE_OP, rank, call, op, type);
        }
    }

    /** A root or peer ({@code role}) that is a rank of this communicator. */
    public int peer(String call, String role, int peer) {
        if (peer < 0 || peer >= size) {
            throw CollectivesException.usage(
                    rank,
                    call + ": " + role + " " + peer + " is not a rank of this" + " communicator of " + size + " ranks");
        }
        return peer;
    }

    /** The memory behind {@code buffer}, which must be live memory of this rank's device. */
    public DeviceMemory memory(String call, DeviceBuffer buffer) {
        if (buffer == null) {
            throw CollectivesException.usage(rank, call + ": the buffer is null");
        }
        if (!own.test(buffer.memory())) {
            throw CollectivesException.usage(rank, call + ": " + buffer + " is not memory of " + device);
        }
        if (buffer.memory().isClosed()) {
            throw CollectivesException.usage(rank, call + ": " + buffer + " was already freed");
        }
        return buffer.memory();
    }

    /**
     * A call's {@code role} side ("send", "recv"): live memory of this rank ({@link #memory}) that holds
     * {@code elements} of {@code type} from element {@code offset} on.
     */
    private void room(String call, String role, DeviceBuffer buffer, long offset, long elements, DataType type) {
        if (buffer == null) {
            throw CollectivesException.usage(rank, call + ": the " + role + " buffer is null");
        }
        memory(call, buffer);
        long held = buffer.sizeBytes() / type.size();
        if (offset < 0 || offset > held) {
            throw CollectivesException.usage(
                    rank,
                    call + ": the " + role + " offset " + offset + " x " + type + " lies outside the " + role
                            + " buffer " + buffer);
        }
        if (elements > held - offset) {
            long room = buffer.sizeBytes() - offset * type.size();
            throw CollectivesException.usage(
                    rank,
                    call + ": the " + role + " buffer " + buffer + " holds " + room
                            + " bytes" + (offset == 0 ? "" : " from element " + offset) + ", but " + elements + " x "
                            + type
                            + " need " + elements * type.size());
        }
    }

    /**
     * R12: this rank's window on {@code buffer} lies in VMM or {@code memAlloc} memory (the library's allocation
     * function, "ncclMemAlloc"), not legacy memory, and starts at a multiple of {@link Rule#WINDOW_ALIGNMENT}.
     * Where registration is collective and every rank must fail alike, check each rank's with
     * {@link #isAligned} and {@link DeviceMemory#isVirtualMemory()} and report them all in these messages.
     */
    public void window(DeviceBuffer buffer, String memAlloc) {
        if (!buffer.memory().isVirtualMemory()) {
            throw CollectivesException.violation(Message.R12_LEGACY_MEMORY, rank, memAlloc, buffer);
        }
        if (!isAligned(buffer)) {
            throw CollectivesException.violation(
                    Message.R12_HEAD_MISALIGNED, rank, Rule.WINDOW_ALIGNMENT, head(buffer));
        }
    }

    /** Whether {@code buffer} starts at a multiple of {@link Rule#WINDOW_ALIGNMENT}. */
    public static boolean isAligned(DeviceBuffer buffer) {
        return buffer.address() % Rule.WINDOW_ALIGNMENT == 0;
    }

    /** "0x7f0000000064", the head of a window as the messages show it. */
    public static String head(DeviceBuffer buffer) {
        return "0x" + Long.toHexString(buffer.address());
    }
}
