package dev.collectives.runtime.spi;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.FlightRecord.State;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The ring of a {@link FlightRecorder}'s entries, preallocated: entry {@code seq} lives in slot
 * {@code (seq - 1) & mask} of a power of two slots. A slot's numbers lie side by side in one {@code long[]} and its
 * references side by side in one {@code Object[]}, so that writing an entry touches two or three cache lines: the
 * library a call ends in (NCCL's enqueue) evicts the caller's lines between calls, and each line an entry touches
 * then costs a fetch.
 *
 * <p>Writers claim an entry with one atomic add ({@link #claim}) and write its slot without a lock, then publish it
 * (a seqlock: a reader, under the recorder's monitor, skips a slot whose number changed while it read).
 */
final class FlightRing {
    private static final byte ENQUEUED = 0;
    private static final State[] STATES = State.values();
    private static final String[] REGISTRATIONS = {"not known", "registered", "unregistered", "graph"};

    // a slot's numbers, at slot × NUMBERS in numbers
    /** The entry the slot holds once written whole; 0 while a thread writes it. */
    private static final int PUBLISHED = 0;
    /** The state (low byte: ENQUEUED and the settled codes) and the registration (next byte). */
    private static final int STATE = 1;

    private static final int ENQUEUED_NANOS = 2;
    private static final int SETTLED_NANOS = 3;
    private static final int SEND = 4;
    private static final int SEND_OFFSET = 5;
    private static final int RECV = 6;
    private static final int RECV_OFFSET = 7;
    private static final int COUNT = 8;
    /** The op's place in its step (high int) and its root or peer (low int). */
    private static final int OP_AND_PEER = 9;

    private static final int NUMBERS = 10;

    // a slot's references, at slot × REFERENCES in references
    private static final int CALL = 0;
    private static final int PIPELINE = 1;
    private static final int STEP = 2;
    private static final int ARGUMENTS = 3;
    private static final int TYPE = 4;
    private static final int STREAM = 5;
    private static final int INSIDE = 6;
    private static final int REFERENCES = 8;

    /** {@link #claimed}, for the atomic add that claims an entry. */
    private static final VarHandle CLAIMED;
    /** An element of {@link #numbers}, a slot's {@link #PUBLISHED} written with release and read with acquire. */
    private static final VarHandle NUMBER = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(FlightRing.class, "claimed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    private final int mask;
    private final long[] numbers;
    private final Object[] references;
    /** How many entries were claimed: the last one's number. */
    private volatile long claimed;
    /** The oldest entry that may still be pending: a settle looks from here on. Guarded by the recorder. */
    private long oldestPending = 1;

    /** A ring of at least {@code capacity} slots; none at 0. */
    FlightRing(int capacity) {
        this.capacity = capacity;
        int slots = capacity <= 1 ? capacity : Integer.highestOneBit(capacity - 1) << 1;
        mask = slots - 1;
        numbers = new long[slots * NUMBERS];
        references = new Object[slots * REFERENCES];
    }

    int capacity() {
        return capacity;
    }

    /** The last entry's number. */
    long last() {
        return claimed;
    }

    /** The number of a new entry: one atomic add, the only step that threads recording at once share. */
    long claim() {
        return (long) CLAIMED.getAndAdd(this, 1L) + 1;
    }

    /**
     * Writes entry {@code seq}, enqueued at {@code enqueuedNanos}, and publishes it. {@code op} is its place in its
     * step ({@link Entry}), {@code registration} 0 not known, 1 registered, 2 unregistered, 3 a graph's launch.
     */
    void write(
            long seq,
            String call,
            String pipeline,
            String step,
            long[] arguments,
            int op,
            long send,
            long sendOffset,
            long recv,
            long recvOffset,
            long count,
            DataType type,
            int peer,
            int registration,
            Object stream,
            List<String> inside) {
        int slot = (int) ((seq - 1) & mask);
        int n = slot * NUMBERS;
        NUMBER.setOpaque(numbers, n + PUBLISHED, 0L);
        VarHandle.storeStoreFence(); // a reader sees the mark before any field of the new entry
        numbers[n + STATE] = ENQUEUED | (long) registration << 8;
        numbers[n + ENQUEUED_NANOS] = CoarseClock.nanos();
        numbers[n + SETTLED_NANOS] = 0;
        numbers[n + SEND] = send;
        numbers[n + SEND_OFFSET] = sendOffset;
        numbers[n + RECV] = recv;
        numbers[n + RECV_OFFSET] = recvOffset;
        numbers[n + COUNT] = count;
        numbers[n + OP_AND_PEER] = (long) op << 32 | peer & 0xffffffffL;
        int r = slot * REFERENCES;
        references[r + CALL] = call;
        references[r + PIPELINE] = pipeline;
        references[r + STEP] = step;
        references[r + ARGUMENTS] = arguments;
        references[r + TYPE] = type;
        references[r + STREAM] = stream;
        references[r + INSIDE] = inside;
        NUMBER.setRelease(numbers, n + PUBLISHED, seq);
    }

    /** Whether {@code slot} holds entry {@code seq}, written whole; a reader checks again once it read the fields. */
    private boolean holds(int slot, long seq) {
        return (long) NUMBER.getAcquire(numbers, slot * NUMBERS + PUBLISHED) == seq;
    }

    /**
     * Settles, as {@code settled} (a {@link State}'s ordinal) at {@code nowNanos}, the pending entries issued on
     * {@code on} (every stream when null); whether there were any. The caller holds the recorder's monitor.
     */
    boolean settle(Object on, byte settled, long nowNanos) {
        long last = claimed;
        long first = Math.max(oldestPending, last - capacity + 1);
        if (first > last) {
            return false; // nothing pending, or a ring of no entries
        }
        boolean any = false;
        long stillPending = 0;
        for (long seq = first; seq <= last; seq++) {
            int slot = (int) ((seq - 1) & mask);
            if (!holds(slot, seq)) {
                // still being written: pending
                stillPending = stillPending == 0 ? seq : stillPending;
                continue;
            }
            int n = slot * NUMBERS;
            if ((byte) numbers[n + STATE] != ENQUEUED) {
                continue;
            }
            if (on == null || references[slot * REFERENCES + STREAM] == on) {
                numbers[n + STATE] = numbers[n + STATE] & ~0xffL | settled;
                numbers[n + SETTLED_NANOS] = nowNanos;
                any = true;
            } else if (stillPending == 0) {
                stillPending = seq;
            }
        }
        oldestPending = stillPending == 0 ? last + 1 : stillPending;
        return any;
    }

    /**
     * The last entry up to which every entry of the first {@code last} settled; with no ring nothing is known to have
     * settled. The caller holds the recorder's monitor.
     */
    long settledUpTo(long last) {
        return capacity == 0 ? 0 : Math.max(oldestPending, last - capacity + 1) - 1;
    }

    /** The call of entry {@code seq} where the ring holds it, else "". The caller holds the recorder's monitor. */
    String callOf(long seq) {
        int slot = (int) ((seq - 1) & mask);
        if (capacity == 0 || !holds(slot, seq)) {
            return "";
        }
        Object call = references[slot * REFERENCES + CALL];
        return call == null ? "" : (String) call;
    }

    /**
     * The entries the ring holds, oldest first, up to {@code last}; {@code micros} turns a {@link System#nanoTime()}
     * into wall-clock microseconds. The caller holds the recorder's monitor.
     */
    List<Entry> entries(long last, java.util.function.LongUnaryOperator micros) {
        List<Entry> entries = new ArrayList<>();
        for (long seq = Math.max(1, last - capacity + 1); seq <= last; seq++) {
            int slot = (int) ((seq - 1) & mask);
            if (!holds(slot, seq)) {
                continue; // still being written
            }
            int n = slot * NUMBERS;
            int r = slot * REFERENCES;
            long[] args = (long[]) references[r + ARGUMENTS];
            List<Long> argumentList =
                    args == null ? List.of() : Arrays.stream(args).boxed().toList();
            @SuppressWarnings("unchecked")
            List<String> ops = references[r + INSIDE] == null ? List.of() : (List<String>) references[r + INSIDE];
            DataType type = (DataType) references[r + TYPE];
            long state = numbers[n + STATE];
            long settled = numbers[n + SETTLED_NANOS];
            Entry entry = new Entry(
                    seq,
                    (String) references[r + PIPELINE],
                    (String) references[r + STEP],
                    argumentList,
                    (int) (numbers[n + OP_AND_PEER] >> 32),
                    (String) references[r + CALL],
                    numbers[n + SEND],
                    numbers[n + SEND_OFFSET],
                    numbers[n + RECV],
                    numbers[n + RECV_OFFSET],
                    numbers[n + COUNT],
                    type == null ? "" : type.name(),
                    (int) numbers[n + OP_AND_PEER],
                    REGISTRATIONS[(int) (state >> 8 & 0xff)],
                    ops,
                    STATES[(int) (state & 0xff)],
                    micros.applyAsLong(numbers[n + ENQUEUED_NANOS]),
                    settled == 0 ? 0 : micros.applyAsLong(settled));
            VarHandle.loadLoadFence();
            if (holds(slot, seq)) { // else a thread wrote the slot anew while it was read
                entries.add(entry);
            }
        }
        return entries;
    }
}
