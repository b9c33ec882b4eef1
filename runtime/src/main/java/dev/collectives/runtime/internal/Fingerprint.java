package dev.collectives.runtime.internal;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a pipeline looks like on this rank, as ordered entries ("op 0" = "allReduce sendbuff+0 ..."), each tied
 * to the rule a difference breaks (R14 for shape, R1 for registration, R2 for head offsets). Bind exchanges it
 * with {@link #agree}: an allgather of a fixed-size digest over the communicator itself, so a rank that bound
 * something else fails on every rank, naming the first entry that differs, instead of hanging MCCL; and a rank
 * that could not get as far as a fingerprint takes part with its failure, which then ends bind on every rank.
 */
public final class Fingerprint {
    /** Bytes of the digest every bind exchanges. */
    public static final int DIGEST_BYTES = 32;
    /** Bytes of the description exchanged only when digests differ, to name the difference. */
    public static final int DETAIL_BYTES = 8192;
    /** What each rank contributes first: a status byte (a fingerprint, or {@link #FAILED}), then the digest. */
    private static final int HEAD_BYTES = 1 + DIGEST_BYTES;
    /** The status of a rank that takes part with its failure instead of a fingerprint. */
    private static final byte FAILED = 1;
    /** What {@link #agreeOnOutcome} takes part with when this rank prepared: the same on every such rank. */
    private static final Fingerprint PREPARED = builder("prepared").build();

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
     * Allgathers this fingerprint's digest over {@code comm} on {@code stream} and waits. If any rank's differs,
     * allgathers the descriptions too and throws, on every rank, the same exception naming the first differing
     * entry, its rule, and each rank's value. If another rank takes part with a failure ({@link #agree}), throws
     * that rank's reason.
     */
    public void exchange(Communicator comm, Stream stream) {
        exchange(comm, stream, this, null);
    }

    /**
     * Bind's agreement: runs {@code prepare} (what this rank does on its own before the ranks compare: allocate,
     * check its externals and the rules it can check alone, then build its fingerprint) and takes part in the
     * exchange with the fingerprint, or with the failure {@code prepare} met. Either way every rank takes part,
     * so a failure that only one rank sees (an undersized external, a failed allocation, a rule checked locally)
     * fails every rank at once with that rank's reason, instead of leaving the others waiting in the exchange
     * until a timeout or a hang in the library. The failing rank rethrows its own failure; the others throw a
     * {@link CollectivesException} carrying the same rule or result. When several ranks fail, the lowest one's
     * reason is reported.
     */
    public static void agree(Communicator comm, Stream stream, Supplier<Fingerprint> prepare) {
        Fingerprint mine;
        try {
            mine = prepare.get();
        } catch (RuntimeException | Error failure) {
            try {
                exchange(comm, stream, null, failure);
            } catch (RuntimeException exchangeFailure) {
                if (exchangeFailure != failure) {
                    failure.addSuppressed(exchangeFailure);
                }
            }
            throw failure;
        }
        exchange(comm, stream, mine, null);
    }

    /**
     * Like {@link #agree}, for a pipeline whose fingerprint was exchanged before (its dims size what
     * {@code prepare} allocates): every rank takes part with the outcome of {@code prepare}, and a rank that failed
     * fails every rank with its reason.
     */
    public static void agreeOnOutcome(Communicator comm, Stream stream, Runnable prepare) {
        agree(comm, stream, () -> {
            prepare.run();
            return PREPARED;
        });
    }

    /** Takes part with {@code mine}, or (when it is null) with {@code failure}. */
    private static void exchange(Communicator comm, Stream stream, Fingerprint mine, Throwable failure) {
        byte[] head = new byte[HEAD_BYTES];
        if (mine == null) {
            head[0] = FAILED;
        } else {
            System.arraycopy(mine.digest(), 0, head, 1, DIGEST_BYTES);
        }
        byte[][] heads = allGather(comm, stream, head, HEAD_BYTES);
        int firstFailed = -1;
        boolean same = true;
        for (int r = heads.length - 1; r >= 0; r--) {
            firstFailed = heads[r][0] == FAILED ? r : firstFailed;
            same &= Arrays.equals(heads[r], heads[0]);
        }
        if (firstFailed < 0 && same) {
            return;
        }
        byte[] detail = mine == null ? failureText(failure) : mine.text().getBytes(StandardCharsets.UTF_8);
        byte[][] texts = allGather(comm, stream, Arrays.copyOf(detail, DETAIL_BYTES), DETAIL_BYTES);
        if (firstFailed < 0) {
            throw difference(texts, comm.rank());
        }
        if (firstFailed == comm.rank()) {
            return; // agree() rethrows this rank's own failure
        }
        throw reported(texts[firstFailed], comm.rank(), firstFailed);
    }

    /** "rule\nresult\nmessage": what the other ranks need to fail alike. */
    private static byte[] failureText(Throwable failure) {
        CollectivesException known = failure instanceof CollectivesException ? (CollectivesException) failure : null;
        String rule = known == null || known.rule() == null ? "" : known.rule().name();
        String result = known == null || known.result() == null ? "" : known.result().name();
        String message = known != null ? failure.getMessage() : failure.toString();
        return (rule + "\n" + result + "\n" + message).getBytes(StandardCharsets.UTF_8);
    }

    private static CollectivesException reported(byte[] text, int myRank, int failedRank) {
        String[] parts = new String(text, StandardCharsets.UTF_8).replace("\0", "").split("\n", 3);
        Rule rule = parts.length > 0 && !parts[0].isEmpty() ? Rule.valueOf(parts[0]) : null;
        Result result = parts.length > 1 && !parts[1].isEmpty() ? Result.valueOf(parts[1]) : null;
        String message = parts.length > 2 ? parts[2] : "";
        if (rule != null && message.startsWith(rule.tag() + " ")) {
            message = message.substring(rule.tag().length() + 1);
        }
        return CollectivesException.reported(rule, result, myRank, "rank " + failedRank + " could not bind: "
                + message);
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
        String pipeline = valueOf(line(lines.get(0), 0));
        return CollectivesException.violation(rule, -1, disagreement(rule, pipeline) + ": '" + key + "' differs; "
                + values);
    }

    /**
     * What the ranks disagree on. Only a difference in shape (R14) means that they bound different pipelines; a
     * difference in registration, head offsets or windows is the same pipeline bound differently.
     */
    private static String disagreement(Rule rule, String pipeline) {
        switch (rule) {
            case R14_SHAPE:
                return "ranks bound different pipelines";
            case R1_MIXED:
                return "ranks register " + pipeline + "'s buffers differently";
            case R2_OFFSET:
                return "ranks passed " + pipeline + " buffers at different offsets from their allocation's head";
            case R12_WINDOW:
                return "ranks register " + pipeline + "'s windows differently";
            default:
                return "ranks bound " + pipeline + " differently";
        }
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
