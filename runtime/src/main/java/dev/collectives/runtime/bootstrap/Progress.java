package dev.collectives.runtime.bootstrap;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where a rank stands in each of its communicators, as its heartbeats carry it: per communicator the number of its
 * last enqueued and of its last completed entry (those of its flight recorder), and the call it waits in (the first
 * entry not completed), so that the server knows where every rank is while the job runs.
 *
 * @param communicators one place per communicator the rank has open, in no particular order
 */
public record Progress(List<Place> communicators) {
    /** A rank that reports no progress (its backend registered none, or it has no communicator yet). */
    public static final Progress NONE = new Progress(List.of());

    /** At most this many communicators go on one beat; a rank with more reports its first ones. */
    static final int MAX_COMMUNICATORS = 16;
    /** At most this many bytes of a call's name go on one beat. */
    static final int MAX_CALL_BYTES = 32;
    /** At most this many bytes of a communicator's name go on one beat. */
    static final int MAX_NAME_BYTES = 120;
    /** The largest encoding: a count, then per communicator a name, an int, two longs and a call's name. */
    public static final int MAX_BYTES =
            1 + MAX_COMMUNICATORS * (1 + MAX_NAME_BYTES + Integer.BYTES + 2 * Long.BYTES + 1 + MAX_CALL_BYTES);

    public Progress {
        communicators = List.copyOf(communicators);
    }

    /** A communicator's place on a rank's heartbeats, until closed. */
    public interface Report extends AutoCloseable {
        @Override
        void close();
    }

    /** Where the communicators reported ({@code places}) stand now. */
    public static Progress of(Collection<Supplier<Place>> places) {
        return new Progress(places.stream().map(Supplier::get).toList());
    }

    /**
     * One communicator's place.
     *
     * @param communicator the communicator's name, the same on each of its ranks: how it came to be, as {@code trace}
     *     names it ("formed", "formed > shrunk #0 without rank 1")
     * @param size how many ranks it has
     * @param enqueued the number of its last entry enqueued (0: none yet)
     * @param completed the number up to which every entry completed (or failed)
     * @param waitingIn the call of entry {@code completed + 1} ("allReduce"), empty where nothing is pending
     */
    public record Place(String communicator, int size, long enqueued, long completed, String waitingIn) {
        /** Whether it enqueued entries that have not completed. */
        public boolean pending() {
            return enqueued > completed;
        }
    }

    /** The bytes a beat carries after the rank. */
    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(MAX_BYTES);
        List<Place> sent = communicators.subList(0, Math.min(MAX_COMMUNICATORS, communicators.size()));
        out.put((byte) sent.size());
        for (Place place : sent) {
            byte[] name = place.communicator().getBytes(StandardCharsets.US_ASCII);
            int nameLength = Math.min(MAX_NAME_BYTES, name.length);
            byte[] call = place.waitingIn().getBytes(StandardCharsets.US_ASCII);
            int length = Math.min(MAX_CALL_BYTES, call.length);
            out.put((byte) nameLength)
                    .put(name, 0, nameLength)
                    .putInt(place.size())
                    .putLong(place.enqueued())
                    .putLong(place.completed())
                    .put((byte) length)
                    .put(call, 0, length);
        }
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    /** Reads what {@link #encode} wrote from {@code in}; NONE where nothing remains (a beat without progress). */
    public static Progress decode(ByteBuffer in) {
        if (!in.hasRemaining()) {
            return NONE;
        }
        int count = in.get();
        if (count < 0 || count > MAX_COMMUNICATORS) {
            throw new IllegalArgumentException("a heartbeat's progress names " + count + " communicators");
        }
        List<Place> places = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String communicator = ascii(in, MAX_NAME_BYTES, "communicator");
            int size = in.getInt();
            long enqueued = in.getLong();
            long completed = in.getLong();
            places.add(new Place(communicator, size, enqueued, completed, ascii(in, MAX_CALL_BYTES, "call")));
        }
        return new Progress(places);
    }

    /** A name of at most {@code max} bytes, its length first; fails naming {@code what} past it. */
    private static String ascii(ByteBuffer in, int max, String what) {
        int length = in.get() & 0xff;
        if (length > max) {
            throw new IllegalArgumentException("a heartbeat's progress names a " + what + " of " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
