package dev.collectives.runtime.internal;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.rules.Message;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.HostStaging;
import dev.collectives.runtime.spi.StepContext;
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
 * {@code calls}; off, a check is a single field read. Never on a communicator whose other ranks may not run this
 * library ({@link Communicator#crossRankChecksOff()}): they would never take part.
 *
 * <p>A check allgathers a digest of the call on the pipeline's stream and waits for the stream. On a GPU the digests
 * lie in pinned host memory that the device reaches in place ({@link HostStaging}): the host writes this rank's
 * there, the allgather reads it and writes every rank's there, and the host reads them after the wait, with no copy
 * in between. Elsewhere (the sim) they are copied synchronously into and out of two device buffers around the
 * allgather. That memory is the pipeline's, made at its first checked call and freed by {@link #close()} with its
 * memory, so that a call allocates nothing; allocating and freeing device memory synchronizes the device, which
 * cost a call more than 100 us on a GPU. The one stream synchronization is the wait that reading the digests needs
 * anyway; it also lets the next check overwrite the memory, whose allgather has then finished.
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
    /** Without staging, where the digests are copied from and to: direct, so that the copies use them in place. */
    private final ByteBuffer mineOnHost;

    private final ByteBuffer allOnHost;
    /**
     * This rank's digest, and every rank's, as the allgather reads and writes them: views of the staging, or device
     * buffers where there is none; null until the first checked call.
     */
    private DeviceBuffer mine;

    private DeviceBuffer all;
    /** Host memory the device gathers the digests in, where the communicator offers it; else null. */
    private HostStaging staging;

    private boolean closed;

    /** The checks of the steps of {@code pipeline} bound on {@code comm}, whose ops run on {@code stream}. */
    public CallCheck(Communicator comm, Stream stream, String pipeline) {
        this.comm = comm;
        this.stream = stream;
        this.pipeline = pipeline;
        this.enabled = checks(comm.capabilities(), CALLS_REQUESTED)
                && comm.crossRankChecksOff().isEmpty();
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
        StepContext.arguments(args);
        if (!enabled) {
            return;
        }
        Lifecycle.checkOpen(comm, pipeline, closed, step);
        String described = describe(pipeline, step, args);
        byte[] call = described.getBytes(StandardCharsets.UTF_8);
        try {
            sha256.update(call);
            sha256.digest(digest, 0, DIGEST_BYTES);
        } catch (DigestException e) {
            throw new IllegalStateException("SHA-256 gives " + DIGEST_BYTES + " bytes", e);
        }
        StepContext.checkingCall(true);
        try {
            if (all == null) {
                allocate();
            }
            ByteBuffer gathered = staging != null ? exchangeStaged() : exchangeCopied();
            for (int i = 0; i < all.sizeBytes(); i++) {
                if (gathered.get(gathered.position() + i) != digest[i % DIGEST_BYTES]) {
                    // the mismatch path only: each rank's call in full, through buffers made for the occasion
                    byte[][] calls = Agreement.allGather(comm, stream, Arrays.copyOf(call, DETAIL_BYTES), DETAIL_BYTES);
                    throw mismatch(comm.rank(), pipeline, step, calls);
                }
            }
        } catch (CollectivesException e) {
            // a library call's failure, "[RESULT n] rank r: allGather failed: why": keep why, name the user's call
            int why = e.getMessage().indexOf(" failed: ");
            if (e.result() == null || why < 0) {
                throw e;
            }
            throw CollectivesException.library(
                    e.result(),
                    comm.rank(),
                    described + " (" + ops + ")",
                    e.getMessage().substring(why + " failed: ".length()));
        } finally {
            StepContext.checkingCall(false);
        }
    }

    /**
     * Every rank's digest, in host staging: the allgather reads this rank's digest from it and writes every rank's
     * into it, and once the stream has finished the host reads them where the allgather wrote them.
     */
    private ByteBuffer exchangeStaged() {
        ByteBuffer host = staging.buffer();
        host.clear().put(digest);
        comm.allGather(mine, all, DIGEST_BYTES, DataType.UINT8, stream);
        stream.synchronize();
        return host.position(DIGEST_BYTES);
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
     * The host staging, this rank's digest at its head and every rank's after it, else the two device buffers;
     * where a buffer fails, the one made is kept for the next call, and freed by close.
     */
    private void allocate() {
        long allBytes = (long) DIGEST_BYTES * comm.size();
        if (mine == null) {
            staging = HostStaging.of(comm, DIGEST_BYTES + allBytes).orElse(null);
            mine = staging != null
                    ? staging.deviceView(0, DataType.UINT8, DIGEST_BYTES)
                    : comm.allocate(Allocator.LEGACY, DataType.UINT8, DIGEST_BYTES);
        }
        all = staging != null
                ? staging.deviceView(DIGEST_BYTES, DataType.UINT8, allBytes)
                : comm.allocate(Allocator.LEGACY, DataType.UINT8, allBytes);
    }

    /**
     * Frees the staging or the device buffers, if a check made them; with the pipeline's memory, after its graphs.
     * Idempotent.
     */
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
        StringBuilder text =
                new StringBuilder(pipeline).append('.').append(step).append('(');
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
            values.append(r == 0 ? "" : "; ")
                    .append("rank ")
                    .append(r)
                    .append(": ")
                    .append(call);
        }
        return CollectivesException.violation(Message.R14_STEP_ARGUMENTS, rank, pipeline, step, values);
    }
}
