package dev.collectives.runtime.internal;

import dev.collectives.annotation.DataType;
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
 * peers in range, buffers of live memory of this rank with room for the call from its offset, and window heads
 * aligned (R12). One per communicator. It reads only {@link DeviceBuffer} and {@link DeviceMemory}, so it runs
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
     * {@code elements} of {@code type} from element {@code offset} on. A null buffer is refused where
     * {@code required}, else there is nothing to check (a broadcast's send off the root): returns whether there was.
     */
    public boolean room(
            String call,
            String role,
            DeviceBuffer buffer,
            boolean required,
            long offset,
            long elements,
            DataType type) {
        if (buffer == null) {
            if (required) {
                throw CollectivesException.usage(rank, call + ": the " + role + " buffer is null");
            }
            return false;
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
        return true;
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
