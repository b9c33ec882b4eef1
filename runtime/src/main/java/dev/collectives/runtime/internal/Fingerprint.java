package dev.collectives.runtime.internal;

import dev.collectives.annotation.Registration;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a pipeline looks like on this rank, as ordered entries ("op #1" = "allReduce sendbuff+0 ..."), each tied
 * to the rule a difference breaks (R14 for shape, R1 for registration, R2 for head offsets), and its digest, which
 * the ranks compare at bind ({@link Agreement}).
 */
public final class Fingerprint {
    /** Bytes of the digest every bind exchanges. */
    static final int DIGEST_BYTES = 32;

    private final String pipeline;
    private final List<Entry> entries;

    private Fingerprint(String pipeline, List<Entry> entries) {
        this.pipeline = pipeline;
        this.entries = List.copyOf(entries);
    }

    /** A builder of the fingerprint of {@code pipeline}. */
    public static Builder builder(String pipeline) {
        return new Builder(pipeline);
    }

    /** The pipeline's name. */
    public String pipeline() {
        return pipeline;
    }

    /** The entries, in the order added. */
    public List<Entry> entries() {
        return entries;
    }

    /** One line per entry, "key = value", after a first line naming the pipeline. */
    public String text() {
        StringBuilder text = new StringBuilder("pipeline = ").append(pipeline).append('\n');
        for (Entry e : entries) {
            text.append(e.key).append(" = ").append(e.value).append('\n');
        }
        return text.toString();
    }

    /** The SHA-256 of {@link #text()}, which ranks compare first. */
    public byte[] digest() {
        return sha256(text().getBytes(StandardCharsets.UTF_8));
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /**
     * Allgathers this fingerprint's digest over {@code comm} on {@code stream} and waits; if any rank's differs,
     * throws on every rank the same exception naming the first differing entry ({@link Agreement#exchange}).
     */
    public void exchange(Communicator comm, Stream stream) {
        Agreement.exchange(comm, stream, this);
    }

    /** One aspect of the pipeline, with the rule a difference across ranks breaks. */
    public static final class Entry {
        private final String key;
        private final String value;

        Entry(Rule rule, String key, String value) {
            if (key.contains("\n") || value.contains("\n") || key.contains(" = ")) {
                throw new IllegalArgumentException("fingerprint entries are single lines: " + key);
            }
            this.key = key;
            this.value = rule == Rule.R14_SHAPE ? value : rule.tag() + " " + value;
        }

        /** What the entry describes, e.g. a buffer's name. */
        public String key() {
            return key;
        }

        /** Its value on this rank. */
        public String value() {
            return value;
        }
    }

    /** Collects entries in order. */
    public static final class Builder {
        private final String pipeline;
        private final List<Entry> entries = new ArrayList<>();

        private Builder(String pipeline) {
            this.pipeline = pipeline;
        }

        /** An entry whose difference is an R14 SHAPE violation. */
        public Builder add(String key, Object value) {
            return add(Rule.R14_SHAPE, key, value);
        }

        /** An entry whose difference violates {@code rule} (R1 registration, R2 head offsets, ...). */
        public Builder add(Rule rule, String key, Object value) {
            entries.add(new Entry(rule, key, String.valueOf(value)));
            return this;
        }

        /**
         * R2 at bind: where head offsets must match across ranks, the head offset of {@code buffer} (an
         * {@code @External} one, whose offset only run time knows) as an R2 entry named {@code key}. They must match
         * for graph registration, and for local registration where MTLink SHARP serves it, i.e. where the
         * communicator has MTLink SHARP (the library chooses it by itself there); elsewhere ranks may pass buffers
         * at any offset and nothing is added.
         */
        public Builder headOffset(Communicator comm, Registration registration, String key, DeviceBuffer buffer) {
            boolean offsetsMatter = registration == Registration.GRAPH
                    || registration == Registration.LOCAL && comm.capabilities().mtlinkSharp();
            return offsetsMatter ? add(Rule.R2_OFFSET, key, buffer.headOffset()) : this;
        }

        /** The fingerprint of the entries added so far. */
        public Fingerprint build() {
            return new Fingerprint(pipeline, entries);
        }
    }
}
