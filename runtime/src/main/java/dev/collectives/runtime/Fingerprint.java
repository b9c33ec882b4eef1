package dev.collectives.runtime;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a pipeline looks like on this rank, as ordered entries ("op 0" = "allReduce sendbuff+0 ..."), each tied
 * to the rule a difference breaks (R14 for shape, R1 for registration, R2 for head offsets). Bind exchanges it
 * with {@link #exchange}: an allgather of a fixed-size digest over the communicator itself, so a rank that bound
 * something else fails on every rank, naming the first entry that differs, instead of hanging MCCL.
 */
public final class Fingerprint {
    /** Bytes of the digest every bind exchanges. */
    public static final int DIGEST_BYTES = 32;
    /** Bytes of the description exchanged only when digests differ, to name the difference. */
    public static final int DETAIL_BYTES = 8192;

    private final String pipeline;
    private final List<Entry> entries;

    private Fingerprint(String pipeline, List<Entry> entries) {
        this.pipeline = pipeline;
        this.entries = List.copyOf(entries);
    }

    public static Builder builder(String pipeline) {
        return new Builder(pipeline);
    }

    public String pipeline() {
        return pipeline;
    }

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
     * Allgathers this fingerprint's digest over {@code comm} on {@code stream} and waits. If any rank's differs,
     * allgathers the descriptions too and throws, on every rank, the same exception naming the first differing
     * entry, its rule, and each rank's value.
     */
    public void exchange(Communicator comm, Stream stream) {
        byte[][] digests = allGather(comm, stream, digest(), DIGEST_BYTES);
        boolean same = true;
        for (byte[] d : digests) {
            same &= Arrays.equals(d, digests[0]);
        }
        if (same) {
            return;
        }
        byte[] mine = Arrays.copyOf(text().getBytes(StandardCharsets.UTF_8), DETAIL_BYTES);
        byte[][] texts = allGather(comm, stream, mine, DETAIL_BYTES);
        throw difference(texts, comm.rank());
    }

    /** Allgathers {@code bytes} bytes of {@code mine} from every rank and waits: one array per rank. */
    static byte[][] allGather(Communicator comm, Stream stream, byte[] mine, int bytes) {
        int size = comm.size();
        try (DeviceBuffer send = comm.allocate(Allocator.LEGACY, DataType.UINT8, bytes);
             DeviceBuffer recv = comm.allocate(Allocator.LEGACY, DataType.UINT8, (long) bytes * size)) {
            send.copyFromHost(mine);
            comm.allGather(send, recv, bytes, DataType.UINT8, stream);
            stream.synchronize();
            byte[] all = new byte[bytes * size];
            recv.copyToHost(all);
            byte[][] perRank = new byte[size][];
            for (int r = 0; r < size; r++) {
                perRank[r] = Arrays.copyOfRange(all, r * bytes, (r + 1) * bytes);
            }
            return perRank;
        }
    }

    /** Builds the exception for gathered descriptions: the first line where some rank differs from rank 0. */
    static CollectivesException difference(byte[][] texts, int myRank) {
        List<String[]> lines = new ArrayList<>();
        for (byte[] t : texts) {
            lines.add(new String(t, StandardCharsets.UTF_8).replace("\0", "").split("\n", -1));
        }
        int longest = lines.stream().mapToInt(l -> l.length).max().orElse(0);
        for (int i = 0; i < longest; i++) {
            String first = line(lines.get(0), i);
            for (int r = 1; r < lines.size(); r++) {
                if (!line(lines.get(r), i).equals(first)) {
                    return describe(lines, i);
                }
            }
        }
        return CollectivesException.violation(Rule.R14_SHAPE, myRank,
                "ranks bound different pipelines (the descriptions differ beyond " + DETAIL_BYTES + " bytes)");
    }

    private static CollectivesException describe(List<String[]> lines, int index) {
        String key = keyOf(line(lines.get(0), index));
        for (String[] l : lines) {
            if (!keyOf(line(l, index)).equals(key)) {
                key = "entry " + index;
                break;
            }
        }
        StringBuilder values = new StringBuilder();
        for (int r = 0; r < lines.size(); r++) {
            values.append(r == 0 ? "" : "; ").append("rank ").append(r).append(": ")
                    .append(valueOf(line(lines.get(r), index)));
        }
        Rule rule = ruleOf(valueOf(line(lines.get(0), index)));
        String pipelines = "";
        String firstPipeline = line(lines.get(0), 0);
        for (String[] l : lines) {
            if (!line(l, 0).equals(firstPipeline)) {
                pipelines = " (different pipelines)";
            }
        }
        return CollectivesException.violation(rule, -1, "ranks bound different pipelines" + pipelines + ": '"
                + key + "' differs; " + values);
    }

    private static String line(String[] lines, int i) {
        return i < lines.length ? lines[i] : "<missing>";
    }

    private static String keyOf(String line) {
        int eq = line.indexOf(" = ");
        return eq < 0 ? line : line.substring(0, eq);
    }

    private static String valueOf(String line) {
        int eq = line.indexOf(" = ");
        return eq < 0 ? line : line.substring(eq + 3);
    }

    private static Rule ruleOf(String value) {
        for (Rule r : Rule.values()) {
            if (value.startsWith(r.tag())) {
                return r;
            }
        }
        return Rule.R14_SHAPE;
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

        public String key() {
            return key;
        }

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

        public Fingerprint build() {
            return new Fingerprint(pipeline, entries);
        }
    }
}
