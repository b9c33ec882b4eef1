package dev.collectives.runtime.bootstrap;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Why a job failed, as data: what happened ({@link Kind}), the ranks of the job at fault (none where it concerns
 * every rank: the server ended the job, or every rank stalled), and the words for people. Every message that reports
 * a failure carries one (ABORT, GONE, STALL, FENCED, REFUSED), and a watcher hears one: which communicators a failure
 * concerns, and whom it blames, is read from its ranks, never from its text.
 *
 * <p>On the wire: byte kind, int count, int[count] ranks, then the text (UTF-8, to the end, at most
 * {@link Rendezvous#MAX_REASON_BYTES}).
 */
public record Cause(Kind kind, int[] ranks, String text) {
    /** The most ranks a cause names (a stall verdict names every rank that never arrived). */
    static final int MAX_RANKS = 1 << 17;
    /** The most bytes of a cause on the wire. */
    public static final int MAX_BYTES = 1 + Integer.BYTES * (1 + MAX_RANKS) + Rendezvous.MAX_REASON_BYTES;

    /** What happened. */
    public enum Kind {
        /** The rank's process died: its connection ended without its leaving. */
        DIED,
        /** The rank sent nothing, not even a heartbeat, past the heartbeat timeout: it was excluded. */
        SILENT,
        /** The rank sent what a member may not (garbage, a message illegal where it came): it was excluded. */
        MISBEHAVED,
        /** The rank ended the job. */
        ABORTED,
        /** The rank timed out waiting for its work in the library (its own report). */
        STALLED,
        /** The stall verdict: the ranks never arrived at the collective that the others waited in. */
        NEVER_ARRIVED,
        /** The stall verdict: every rank waited (they called different collectives); it names none. */
        DIVERGED,
        /** The ranks did not join the job in time. */
        NEVER_JOINED,
        /** A rank's claim to join cannot be one of this job (another size, a duplicate): the launch is wrong. */
        MISLAUNCHED,
        /** A claim to join was turned away (a wrong token, another version, a replacement refused); the job goes on. */
        TURNED_AWAY,
        /** The rank was excluded from the job (the server said so when it asked, once its connection ended). */
        EXCLUDED,
        /** The server ended the job (it was closed or interrupted); it names no rank. */
        SERVER_ENDED,
        /** The server is gone or silent (where rank 0's process hosts it, that names rank 0). */
        SERVER_LOST
    }

    public Cause {
        ranks = ranks.clone();
        if (ranks.length > MAX_RANKS) {
            throw new IllegalArgumentException("a cause names at most " + MAX_RANKS + " ranks, not " + ranks.length);
        }
    }

    /** A cause that names {@code ranks} (none: it concerns every rank). */
    public static Cause of(Kind kind, String text, int... ranks) {
        return new Cause(kind, ranks, text);
    }

    /** The ranks of the job at fault; none where the cause concerns every rank. */
    @Override
    public int[] ranks() {
        return ranks.clone();
    }

    /** The same cause, told in other words. */
    public Cause withText(String text) {
        return new Cause(kind, ranks, text);
    }

    /** Its bytes on the wire (the text cut to {@link Rendezvous#MAX_REASON_BYTES}). */
    public byte[] bytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(kind.ordinal());
            out.writeInt(ranks.length);
            for (int rank : ranks) {
                out.writeInt(rank);
            }
            out.write(truncated(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** What {@link #bytes} wrote; a kind it does not know, or counts that do not add up, fail. */
    public static Cause read(byte[] bytes) throws ProtocolException {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            int kind = in.readUnsignedByte();
            if (kind >= Kind.values().length) {
                throw new ProtocolException("a failure of unknown kind " + kind);
            }
            int count = in.readInt();
            if (count < 0 || count > MAX_RANKS || (long) count * Integer.BYTES > in.available()) {
                throw new ProtocolException("a failure that names " + count + " ranks in " + bytes.length + " bytes");
            }
            int[] ranks = new int[count];
            for (int i = 0; i < count; i++) {
                ranks[i] = in.readInt();
            }
            if (in.available() > Rendezvous.MAX_REASON_BYTES) {
                throw new ProtocolException("a failure's text of " + in.available() + " bytes, above the limit of "
                        + Rendezvous.MAX_REASON_BYTES);
            }
            return new Cause(Kind.values()[kind], ranks, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (ProtocolException e) {
            throw e;
        } catch (IOException e) {
            throw new ProtocolException("a failure of " + bytes.length + " bytes, too short for its kind and ranks");
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Cause that
                && kind == that.kind
                && Arrays.equals(ranks, that.ranks)
                && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * kind.hashCode() + Arrays.hashCode(ranks)) + text.hashCode();
    }

    /** The text for people. */
    @Override
    public String toString() {
        return text;
    }

    /** {@code text} in UTF-8, cut to the bound on a reason's bytes (ending "...") where it is longer. */
    public static byte[] truncated(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= Rendezvous.MAX_REASON_BYTES) {
            return bytes;
        }
        return new String(bytes, 0, Rendezvous.MAX_REASON_BYTES - 3, StandardCharsets.UTF_8)
                .replace("\uFFFD", "")
                .concat("...")
                .getBytes(StandardCharsets.UTF_8);
    }
}
