package dev.collectives.runtime.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Which communicator of which job: the job's id and how the communicator came to be from the job's first one, step by
 * step ("formed", "shrunk #0 without rank 1", "reformed, rank 1 replaced", "grown to 4", "split #0 with color 1").
 * Every rank of a communicator names it alike, and no other communicator of the job has its name, so that the flight
 * records of each land in files of their own and {@code trace} never mixes them.
 *
 * <p>The job's id is random, proposed by rank 0 when the job forms. Where a job forms anew with new processes (a
 * reform with replacements, a growth), the processes exchange {@link #claim claims} as they form: the ranks that were
 * there say the name they derive from their communicator's, the new processes propose one, and the first of the former
 * wins ({@link #agreed}), so that a replacement names the communicator as the survivors do.
 */
public final class Lineage {
    /** The first step of every job's first communicator. */
    public static final String FORMED = "formed";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int JOB_ID_BYTES = 6;
    private static final byte PROPOSED = 0;
    private static final byte DERIVED = 1;
    /**
     * The bytes of every claim: the rendezvous's exchanges take values of one size from every rank, whether it claims
     * a long lineage or proposes a new job.
     */
    private static final int CLAIM_BYTES = 1024;
    /** The job of communicators that other libraries made: this process cannot know theirs. */
    private static final String WRAPPED_JOB = "wrapped";
    /** How many communicators of each size this process wrapped. */
    private static final Map<Integer, Integer> WRAPPED = new HashMap<>();

    private final String job;
    private final List<String> steps;
    /** Whether it was derived from a communicator this process held, rather than proposed for a new job. */
    private final boolean derived;

    private Lineage(String job, List<String> steps, boolean derived) {
        this.job = job;
        this.steps = List.copyOf(steps);
        this.derived = derived;
    }

    /** The first communicator of a new job, with a new random id: what rank 0 proposes, and in-process jobs use. */
    public static Lineage newJob() {
        byte[] id = new byte[JOB_ID_BYTES];
        RANDOM.nextBytes(id);
        return new Lineage(HexFormat.of().formatHex(id), List.of(FORMED), false);
    }

    /**
     * The first communicator of the job whose ranks formed it from {@code uniqueId}, which they all hold: the job's id
     * is a digest of it.
     */
    public static Lineage ofUniqueId(byte[] uniqueId) {
        return new Lineage(HexFormat.of().formatHex(sha256(uniqueId), 0, JOB_ID_BYTES), List.of(FORMED), false);
    }

    /**
     * A communicator that another library made, which this process wrapped: the {@code n}-th of its size wrapped here
     * (from 0), so that ranks that wrap their communicators in the same order name them alike.
     */
    public static Lineage wrapped(int size) {
        int n;
        synchronized (WRAPPED) {
            n = WRAPPED.merge(size, 1, Integer::sum) - 1;
        }
        return new Lineage(WRAPPED_JOB, List.of("wrapped #" + n + " of " + size + " ranks"), false);
    }

    /** The job's id: hex digits, or "wrapped" for a communicator another library made. */
    public String job() {
        return job;
    }

    /** The steps from the job's first communicator to this one, the first "formed". */
    public List<String> steps() {
        return steps;
    }

    /** The child of a split, the {@code seq}-th split of this communicator (from 0), with {@code color}. */
    public Lineage split(long seq, int color) {
        return then("split #" + seq + " with color " + color);
    }

    /** The child of a shrink, the {@code seq}-th of this communicator (from 0), without {@code excluded} (sorted). */
    public Lineage shrunk(long seq, int[] excluded) {
        return then("shrunk #" + seq + " without " + ShrinkOrigin.ranks(excluded));
    }

    /** The job formed anew from this communicator's survivors and the replacements of {@code replaced}. */
    public Lineage reformed(int[] replaced) {
        return then(replaced.length == 0 ? "reformed" : "reformed, " + ShrinkOrigin.ranks(replaced) + " replaced");
    }

    /** This communicator grown to {@code size} ranks by the processes that joined. */
    public Lineage grown(int size) {
        return then("grown to " + size);
    }

    private Lineage then(String step) {
        List<String> longer = new ArrayList<>(steps);
        longer.add(step);
        return new Lineage(job, longer, true);
    }

    /**
     * What this process says the communicator forming is: this name, marked as derived from one it held or as a
     * proposal. A rank exchanges it with the others ({@link #agreed}) as it forms a communicator through the job's
     * rendezvous.
     */
    public byte[] claim() {
        byte[] text = (job + "\n" + String.join("\n", steps)).getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, CLAIM_BYTES - 3); // a lineage of dozens of recoveries still fits
        byte[] claim = new byte[CLAIM_BYTES];
        claim[0] = derived ? DERIVED : PROPOSED;
        claim[1] = (byte) (length >> 8);
        claim[2] = (byte) length;
        System.arraycopy(text, 0, claim, 3, length);
        return claim;
    }

    /**
     * The name every rank takes from the ranks' {@link #claim claims}, in rank order: the first one derived from a
     * communicator a rank held, else rank 0's proposal.
     */
    public static Lineage agreed(byte[][] claims) {
        byte[] chosen = Arrays.stream(claims)
                .filter(c -> c.length > 0 && c[0] == DERIVED)
                .findFirst()
                .orElse(claims[0]);
        int length = (chosen[1] & 0xff) << 8 | chosen[2] & 0xff;
        String text = new String(chosen, 3, length, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n'); // the job, then a step a line
        return newline < 0
                ? new Lineage(text, List.of(), false)
                : new Lineage(
                        text.substring(0, newline),
                        text.substring(newline + 1).lines().toList(),
                        false);
    }

    /** Ten hex digits of the steps' SHA-256: the communicator in a file name. */
    String digest() {
        return HexFormat.of().formatHex(sha256(String.join("\n", steps).getBytes(StandardCharsets.UTF_8)), 0, 5);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /** "formed > shrunk #0 without rank 1 (job 3fa2c1d0e9b7)" */
    @Override
    public String toString() {
        return String.join(" > ", steps) + " (job " + job + ")";
    }
}
