package dev.collectives.runtime.internal;

import dev.collectives.rules.Rule;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Stream;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Every rank must call a step with the same arguments, as every rank must call a collective with the same count:
 * otherwise the library hangs or moves the wrong data. {@link #agree} checks that before a step with parameters
 * issues anything: always where the communicator checks calls cheaply ({@link Capabilities#cheapCallChecks()}, the
 * sim), elsewhere when the environment variable {@value #VARIABLE} lists {@code calls} (one small allgather and a
 * stream synchronization per call; off by default, when the check is a single field read).
 */
public final class CallCheck {
    /** The environment variable that turns checks on: a comma-separated list, e.g. {@code calls}. */
    public static final String VARIABLE = "COLLECTIVES_CHECK";
    /** The check {@value #VARIABLE} must list for calls to be checked where they are not checked cheaply. */
    public static final String CALLS = "calls";
    /** Bytes of the digest of a call that every check allgathers. */
    static final int DIGEST_BYTES = 32;
    /** Bytes of a call's description, gathered only when digests differ, to name each rank's arguments. */
    static final int DETAIL_BYTES = 1024;

    private static final boolean CALLS_REQUESTED = listsCalls(System.getenv(VARIABLE));

    private CallCheck() {
    }

    /**
     * Fails, on every rank alike, with R14 naming the step and each rank's arguments if some rank called
     * {@code pipeline.step} with other {@code args} than another; returns once every rank's agree. Collective:
     * every rank calls it for the step, outside any capture, before the step's ops ({@code ops}, e.g.
     * "@AllReduce"). When the exchange itself fails (a peer died, the communicator was aborted), the failure names
     * the step and its ops, the user's call, rather than the check's internal allgather.
     */
    public static void agree(Communicator comm, Stream stream, String pipeline, String step, String ops,
                             long... args) {
        if (!checks(comm.capabilities(), CALLS_REQUESTED)) {
            return;
        }
        String described = describe(pipeline, step, args);
        byte[] call = described.getBytes(StandardCharsets.UTF_8);
        try {
            byte[][] digests = Agreement.allGather(comm, stream, Fingerprint.sha256(call), DIGEST_BYTES);
            for (byte[] digest : digests) {
                if (!Arrays.equals(digest, digests[0])) {
                    byte[][] calls = Agreement.allGather(comm, stream, Arrays.copyOf(call, DETAIL_BYTES),
                            DETAIL_BYTES);
                    throw mismatch(comm.rank(), pipeline, step, calls);
                }
            }
        } catch (CollectivesException e) {
            // a library call's failure, "[RESULT n] rank r: allGather failed: why": keep why, name the user's call
            int why = e.getMessage().indexOf(" failed: ");
            if (e.result() == null || why < 0) {
                throw e;
            }
            throw CollectivesException.library(e.result(), comm.rank(), described + " (" + ops + ")",
                    e.getMessage().substring(why + " failed: ".length()));
        }
    }

    /** Whether calls are checked: always where the check is cheap, elsewhere on request. */
    static boolean checks(Capabilities capabilities, boolean requested) {
        return requested || capabilities.cheapCallChecks();
    }

    /** Whether a value of {@value #VARIABLE} asks for call checks: it lists {@code calls}, in any case. */
    static boolean listsCalls(String value) {
        if (value == null) {
            return false;
        }
        for (String check : value.split(",")) {
            if (check.trim().toLowerCase(Locale.ROOT).equals(CALLS)) {
                return true;
            }
        }
        return false;
    }

    /** {@code Pipeline.step(a, b)}: what the ranks compare, and what a mismatch shows per rank. */
    static String describe(String pipeline, String step, long[] args) {
        StringBuilder text = new StringBuilder(pipeline).append('.').append(step).append('(');
        for (int i = 0; i < args.length; i++) {
            text.append(i == 0 ? "" : ", ").append(args[i]);
        }
        return text.append(')').toString();
    }

    /** The R14 failure, the same on every rank but for the rank it names: each rank's call. */
    static CollectivesException mismatch(int rank, String pipeline, String step, byte[][] calls) {
        StringBuilder values = new StringBuilder();
        for (int r = 0; r < calls.length; r++) {
            String call = new String(calls[r], StandardCharsets.UTF_8).replace("\0", "");
            values.append(r == 0 ? "" : "; ").append("rank ").append(r).append(": ").append(call);
        }
        return CollectivesException.violation(Rule.R14_SHAPE, rank, "the ranks called " + pipeline + "." + step
                + "() with different arguments (" + values + "); every rank must call a step with the same ones");
    }
}
