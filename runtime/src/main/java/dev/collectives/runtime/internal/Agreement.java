package dev.collectives.runtime.internal;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Bind's agreement across ranks, over the communicator itself: every rank allgathers a fixed-size head (a status
 * byte, then its {@link Fingerprint}'s digest), so a rank that bound something else fails on every rank, naming the
 * first entry that differs ({@link Disagreement}), instead of hanging the library; and a rank that could not get as
 * far as a fingerprint takes part with its failure ({@link ReportedFailure}), which then ends bind on every rank.
 * Only when the heads differ do the ranks allgather their descriptions too. On a communicator whose other ranks may
 * not run this library ({@link Communicator#crossRankChecksOff()}), there is no exchange: such a rank would never
 * take part; bind then checks only what {@code prepare} checks on this rank.
 */
public final class Agreement {
    /** Bytes of the description exchanged only when heads differ, to name the difference. */
    static final int DETAIL_BYTES = 8192;
    /** What each rank contributes first: a status byte (a fingerprint, or {@link #FAILED}), then the digest. */
    private static final int HEAD_BYTES = 1 + Fingerprint.DIGEST_BYTES;
    /** The status of a rank that takes part with its failure instead of a fingerprint. */
    private static final byte FAILED = 1;
    /** What {@link #agreeOnOutcome} takes part with when this rank prepared: the same on every such rank. */
    private static final Fingerprint PREPARED = Fingerprint.builder("prepared").build();

    private Agreement() {}

    /**
     * Runs {@code prepare} (what this rank does on its own before the ranks compare: allocate, check its externals
     * and the rules it can check alone, then build its fingerprint) and takes part in the exchange with the
     * fingerprint, or with the failure {@code prepare} met. Either way every rank takes part, so a failure that
     * only one rank sees (an undersized external, a failed allocation, a rule checked locally) fails every rank at
     * once with that rank's reason, instead of leaving the others waiting in the exchange until a timeout or a hang
     * in the library. The failing rank rethrows its own failure; the others throw a {@link CollectivesException}
     * carrying the same rule or result. When several ranks fail, the lowest one's reason is reported.
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
        exchange(comm, stream, mine);
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

    /**
     * Takes part with {@code mine} and waits. If any rank's digest differs, throws, on every rank, the same exception
     * naming the first differing entry, its rule, and each rank's value. If another rank takes part with a failure
     * ({@link #agree}), throws that rank's reason.
     */
    static void exchange(Communicator comm, Stream stream, Fingerprint mine) {
        exchange(comm, stream, mine, null);
    }

    /** Takes part with {@code mine}, or (when it is null) with {@code failure}. */
    private static void exchange(Communicator comm, Stream stream, Fingerprint mine, Throwable failure) {
        if (comm.crossRankChecksOff().isPresent()) {
            return;
        }
        byte[] head = new byte[HEAD_BYTES];
        if (mine == null) {
            head[0] = FAILED;
        } else {
            System.arraycopy(mine.digest(), 0, head, 1, Fingerprint.DIGEST_BYTES);
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
        byte[] detail =
                mine == null ? ReportedFailure.encode(failure) : mine.text().getBytes(StandardCharsets.UTF_8);
        byte[][] texts = allGather(comm, stream, Arrays.copyOf(detail, DETAIL_BYTES), DETAIL_BYTES);
        if (firstFailed < 0) {
            throw Disagreement.of(texts, comm.rank());
        }
        if (firstFailed == comm.rank()) {
            return; // agree() rethrows this rank's own failure
        }
        throw ReportedFailure.decode(texts[firstFailed], comm.rank(), firstFailed);
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
}
