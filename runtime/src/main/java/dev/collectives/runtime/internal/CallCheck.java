package dev.collectives.runtime.internal;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.HostStaging;


import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;

/**
 * Every rank must call a step with the same arguments, as every rank must call a collective with the same count:
 * otherwise the library hangs or moves the wrong data. A pipeline's {@link #agree} checks that before a step with
 * parameters issues anything: always where the communicator checks calls cheaply ({@link
 * Capabilities#cheapCallChecks()}, the sim), elsewhere when the environment variable {@value #VARIABLE} lists
 * {@code calls}; off, a check is a single field read.
 *
 * <p>A check copies this rank's digest of the call to the device, allgathers the digests on the pipeline's stream
 * and copies them back: on a GPU the three are enqueued on the stream through pinned host memory ({@link
 * HostStaging}), elsewhere the copies are synchronous. The two device buffers and the host memory are the
 * pipeline's, made at its first checked call and freed by {@link #close()} with its memory, so that a call
 * allocates nothing; allocating and freeing device memory synchronizes the device, which cost a call more than
 * 100 us on a GPU. The one stream synchronization is the wait that reading the digests needs anyway; it also lets
 * the next check overwrite the buffers, whose allgather has then finished.
 */
public final class CallCheck implements AutoCloseable {
    /** The environment variable that turns checks on: a comma-separated list, e.g. {@code calls}. */
    public static final String VARIABLE = "COLLECTIVES_CHECK";
    /** The check {@value #VARIABLE} must list for calls to be checked where they are not checked cheaply. */
    public static final String CALLS = "calls";
    /** Bytes of the digest of a call that every check allgathers. */
    static final int DIGEST_BYTES = 32;
    /** Bytes of a call's description, gathered only when digests differ, to name each rank's arguments. */
    static final int DETAIL_BYTES = 1024;

    private static final boolean CALLS_REQUESTED = listsCalls(System.getenv(VARIABLE));

    private final Communicator comm;
    private final Stream stream;
    private final String pipeline;
    private final boolean enabled;
    private final MessageDigest sha256;
    private final byte[] digest = new byte[DIGEST_BYTES];
    /** Where the digests are copied from and to: direct, so that the copies read and write them in place. */
    private final ByteBuffer mineOnHost;
    private final ByteBuffer allOnHost;
    /** This rank's digest, and every rank's, on the device; null until the first checked call. */
    private DeviceBuffer mine;
    private DeviceBuffer all;
    /** Host memory the digests are copied through in stream order, where the communicator offers it; else null. */
    private HostStaging staging;
    private boolean closed;

    /** The checks of the steps of {@code pipeline} bound on {@code comm}, whose ops run on {@code stream}. */
    public CallCheck(Communicator comm, Stream stream, String pipeline) {
        this.comm = comm;
        this.stream = stream;
        this.pipeline = pipeline;
        this.enabled = checks(comm.capabilities(), CALLS_REQUESTED);
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
        this.mineOnHost = ByteBuffer.allocateDirect(DIGEST_BYTES);
        this.allOnHost = ByteBuffer.allocateDirect(DIGEST_BYTES * comm.size());
    }

    /**
     * Fails, on every rank alike, with R14 naming the step and each rank's arguments if some rank called
     * {@code pipeline.step} with other {@code args} than another; returns once every rank's agree. Collective:
     * every rank calls it for the step, outside any capture, before the step's ops ({@code ops}, e.g.
     * "@AllReduce"). When the exchange itself fails (a peer died, the communicator was aborted), the failure names
     * the step and its ops, the user's call, rather than the check's internal allgather.
     */
    public void agree(String step, String ops, long... args) {
        if (!enabled) {
            return;
        }
        Lifecycle.requireOpen(comm, pipeline, closed, step);
        String described = describe(pipeline, step, args);
        byte[] call = described.getBytes(StandardCharsets.UTF_8);
        try {
            sha256.update(call);
            sha256.digest(digest, 0, DIGEST_BYTES);
        } catch (DigestException e) {
            throw new IllegalStateException("SHA-256 gives " + DIGEST_BYTES + " bytes", e);
        }
        try {
            if (all == null) {
                allocate();
            }
            ByteBuffer gathered = staging != null ? exchangeStaged() : exchangeCopied();
            for (int i = 0; i < all.sizeBytes(); i++) {
                if (gathered.get(gathered.position() + i) != digest[i % DIGEST_BYTES]) {
                    // the mismatch path only: each rank's call in full, through buffers made for the occasion
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

    /**
     * Every rank's digest, through host staging: the copy in, the allgather and the copy out are enqueued on the
     * stream, and one wait for the stream covers the three.
     */
    private ByteBuffer exchangeStaged() {
        staging.buffer().clear().put(digest);
        staging.copyTo(0, mine, DIGEST_BYTES, stream);
        comm.allGather(mine, all, DIGEST_BYTES, DataType.UINT8, stream);
        staging.copyFrom(all, DIGEST_BYTES, all.sizeBytes(), stream);
        stream.synchronize();
        return staging.buffer().position(DIGEST_BYTES);
    }

    /** Every rank's digest, through synchronous copies around the allgather (where the library cannot stage). */
    private ByteBuffer exchangeCopied() {
        mine.memory().copyIn(mine.headOffset(), mineOnHost.clear().put(digest).flip());
        comm.allGather(mine, all, DIGEST_BYTES, DataType.UINT8, stream);
        stream.synchronize();
        all.memory().copyOut(all.headOffset(), allOnHost.clear());
        return allOnHost.clear();
    }

    /**
     * The device buffers and the host staging; where one fails, those made are kept for the next call, and freed by
     * close.
     */
    private void allocate() {
        if (mine == null) {
            mine = comm.allocate(Allocator.LEGACY, DataType.UINT8, DIGEST_BYTES);
        }
        if (staging == null) {
            staging = HostStaging.of(comm, (long) DIGEST_BYTES * (1 + comm.size())).orElse(null);
        }
        all = comm.allocate(Allocator.LEGACY, DataType.UINT8, (long) DIGEST_BYTES * comm.size());
    }

    /** Frees the device buffers, if a check made them; with the pipeline's memory, after its graphs. Idempotent. */
    @Override
    public void close() {
        closed = true;
        AutoCloseable[] owned = {staging, mine, all};
        staging = null;
        mine = null;
        all = null;
        Lifecycle.closeInOrder(owned);
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
