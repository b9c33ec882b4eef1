package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The ranks of a job, met and authenticated, before any communicator exists: enough to carry a communicator's
 * unique id from rank 0 to every rank ({@link #broadcast}) and to compare small fixed-size values such as
 * fingerprints ({@link #allGather}). Every rank calls the same operations in the same order. Each operation
 * finishes within the bootstrap timeout or fails on every rank still connected, naming the ranks involved.
 * Close it once the communicator is formed, or let it {@link #watch} the job while the communicator lives.
 */
public interface Rendezvous extends AutoCloseable {
    /** The most bytes one rank may contribute to one operation. */
    int MAX_VALUE_BYTES = 1 << 16;
    /** The most bytes one allgather may return (the contribution times the world size). */
    int MAX_GATHER_BYTES = 1 << 24;
    /** The longest error text a rank sends to the others when it ends the job. */
    int MAX_REASON_BYTES = 4096;
    /** Bytes of each rank's value that {@link #agree} shows when the ranks disagree. */
    int AGREE_DETAIL_BYTES = 256;

    /** This rank. */
    int rank();

    /** The number of ranks. */
    int size();

    /** Where the ranks met, for messages. */
    String where();

    /**
     * This rank's waits for the job's news: over TCP, derived from its operation and heartbeat timeouts; elsewhere
     * (no server declares deaths) the defaults.
     */
    default Timeouts timeouts() {
        return Timeouts.withDefaultHeartbeat(Settings.DEFAULT_TIMEOUT);
    }

    /**
     * Rank 0's {@code value} (at most {@link #MAX_VALUE_BYTES}), returned on every rank. The other ranks' argument
     * is ignored and may be null.
     */
    byte[] broadcast(byte[] value);

    /**
     * Every rank's {@code value}, indexed by rank. Every rank must pass the same number of bytes (at most
     * {@link #MAX_VALUE_BYTES}, and the total at most {@link #MAX_GATHER_BYTES}); a rank passing another length
     * fails the operation on every rank.
     */
    byte[][] allGather(byte[] value);

    /**
     * As {@link #allGather}, except that over TCP a rank other than 0 whose process dies (its connection ends
     * without leaving) no longer ends the job from the first such call on: the survivors go on, and the rank's value
     * is missing from this and every later result, which says why instead, the same on every survivor. Where rank 0's
     * process hosts the server it must survive; with a standalone {@code JobServer} any rank may die. A rendezvous that cannot tell a death (a file one) ends the job as
     * {@link #allGather} does.
     */
    default Survivors allGatherOfSurvivors(byte[] value) {
        return new Survivors(allGather(value), new String[size()]);
    }

    /**
     * What {@link #allGatherOfSurvivors} returns, indexed by rank: a survivor's value (its reason null), or why a
     * rank is gone (its value null).
     */
    record Survivors(byte[][] values, String[] goneReasons) {}

    /**
     * Fails on every rank, naming each rank's value, unless all ranks pass the same {@code value} (e.g. the
     * backend and library version: a job mixing them would hang later instead of failing here).
     */
    default void agree(String what, String value) {
        byte[][] digests = allGather(sha256(value));
        if (Arrays.stream(digests).allMatch(d -> Arrays.equals(d, digests[0]))) {
            return;
        }
        byte[][] details = allGather(Arrays.copyOf(value.getBytes(StandardCharsets.UTF_8), AGREE_DETAIL_BYTES));
        List<String> values = new ArrayList<>();
        for (int r = 0; r < details.length; r++) {
            values.add("rank " + r + ": " + new String(details[r], StandardCharsets.UTF_8).replace("\0", ""));
        }
        throw BootstrapException.failed(
                rank(), "the ranks at " + where() + " disagree on " + what + ": " + String.join("; ", values), null);
    }

    /**
     * How many ranks share a node at most, from an allgather of each rank's host name (a collective: every rank
     * calls it). Backends pass it to {@link dev.collectives.runtime.Topology} (IB SHARP, R8, needs exactly 1).
     */
    default int ranksPerNode() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "unknown host of rank " + rank();
        }
        byte[][] hosts = allGather(sha256(host));
        int most = 0;
        for (byte[] h : hosts) {
            int same = (int) Arrays.stream(hosts)
                    .filter(other -> Arrays.equals(other, h))
                    .count();
            most = Math.max(most, same);
        }
        return most;
    }

    /**
     * Ends the job because this rank cannot go on (e.g. its library failed between two operations), saying why:
     * the other ranks fail at once, inside their current operation or at their next one, with this rank's number
     * and {@code reason}, instead of waiting for the timeout. Then closes. Does nothing after a failure or close.
     */
    void abort(String reason);

    /**
     * Watches the job from now on, for a backend whose data does not flow through the rendezvous (a native
     * library's communicator): {@code onFailure} hears why the job failed ({@link Cause}: what happened, the ranks
     * of the job at fault, and the words for people), once, on a thread of the rendezvous,
     * also while every rank waits inside the library: a rank whose process ended without closing its rendezvous
     * (killed, crashed), a rank that ended the job ({@link #abort}), or ranks that did not arrive where the others
     * {@link #stalled stalled}. Afterwards only {@link #stalled}, {@link #abort}, {@link #resumeAmongSurvivors} and
     * {@link #close} may be called. Over TCP, the death of a rank other than 0 (its process ended without leaving)
     * is news rather than the job's end (any rank's, rank 0's too, with a standalone {@code JobServer}): every
     * watcher hears it, and the survivors may meet again. Returns whether
     * this rendezvous watches: a TCP one does (its server listens to every rank); the others do not, and are left as
     * they were.
     */
    default boolean watch(Consumer<Cause> onFailure) {
        return false;
    }

    /**
     * In a watched job whose watchers heard of a rank's death: stops watching and serves operations again, so that
     * the survivors meet (e.g. to form a new communicator among them); from then on only
     * {@link #allGatherOfSurvivors}, which leaves the dead ranks out, and {@link #abort} and {@link #close}. Every
     * survivor calls it. Returns why they cannot (the job ended otherwise: a rank's abort, a stall's verdict, or the
     * death of rank 0, whose process serves the rendezvous; no death was reported; the rendezvous cannot tell one),
     * or empty once they can. The rendezvous of this package that do not watch serve operations already (empty);
     * by default a rendezvous cannot tell a death.
     */
    default Optional<String> resumeAmongSurvivors() {
        return Optional.of("the rendezvous at " + where() + " cannot tell a rank's death");
    }

    /**
     * In a watched job whose ranks are alive: stops watching and serves operations again (e.g. to {@link #grow} the
     * job; {@link #watch} watches it again). Every rank calls it. Returns why it cannot (a rank died, or the job
     * ended, before the watch ended: the watcher heard it; the rendezvous does not watch), or empty once it serves
     * operations. By default a rendezvous does not watch.
     */
    default Optional<String> unwatch() {
        return Optional.of("the rendezvous at " + where() + " does not watch its job");
    }

    /**
     * Whether this rank joined in the place of a rank that died (a process started with that rank and the setting
     * {@code replacement}, {@code COLLECTIVES_REPLACEMENT=1}): its first operation is {@link #reunite}, where the
     * survivors meet it.
     */
    default boolean replacement() {
        return false;
    }

    /**
     * The survivors of the deaths in a job meet the processes that replace the ranks that died, and serve the
     * ordinary operations again among all the ranks of the job: every survivor calls it once its watch heard of
     * a death and the job was resumed ({@link #resumeAmongSurvivors}; a rendezvous that does not watch serves
     * operations already), and every {@link #replacement} as its first operation. The reunion waits up to the
     * shortest {@code timeout} the survivors pass for a replacement of every rank that died; over TCP, the server admits one process per dead rank that proves it holds
     * the job token, and turns away, with the reason and without ending the job, a replacement for a rank that is
     * alive or that has one already. Returns the ranks replaced, in order, the same on every rank; fails on every
     * rank, naming the ranks without a replacement, when {@code timeout} passes first. By default a rendezvous
     * cannot admit a replacement.
     */
    default int[] reunite(Duration timeout) {
        throw BootstrapException.settings(
                rank(), "the rendezvous at " + where() + " cannot admit a replacement for a rank; a tcp:// one can");
    }

    /**
     * Whether this process joins a running job at its next growth (a process started with the setting
     * {@code joining}, {@code COLLECTIVES_JOINING=1}): it holds the lowest number after the job's ranks that no other
     * process waiting to join holds ({@link #rank}), and its first operation is {@link #grow}, where the members take
     * it in. Its {@link #size} is known once the job grew.
     */
    default boolean joining() {
        return false;
    }

    /**
     * The members of a running job take in {@code added} processes that {@link #joining join} it, which take the
     * numbers after the job's ranks, and serve the ordinary operations among all of them: every member calls it with
     * the same {@code added} (at least 1), with no operation under way (a job whose ranks died grows after its
     * survivors met, {@link #resumeAmongSurvivors}; the dead ranks keep their numbers), and every process that joins
     * calls it as its first operation ({@code added} is not read there). The growth waits up to the shortest
     * {@code timeout} the members pass for the processes that join. Returns the job's size after it, the same on
     * every rank. Where the members ask for different numbers, fewer processes came in time, or one of them died
     * first, it fails on every member, saying why (how many came), and the job goes on at its size: the rendezvous
     * stays usable. A process waiting to join that the growth does not take (one beyond those asked for, or every one
     * where it failed) is turned away with the reason. By default a rendezvous cannot admit a process that joins.
     */
    default int grow(int added, Duration timeout) {
        throw BootstrapException.settings(
                rank(),
                "the rendezvous at " + where() + " cannot admit processes that join a running job; a tcp:// one can");
    }

    /**
     * In a watched job, this rank timed out waiting for its work in the library ({@code where}, for the message,
     * e.g. "its stream waited 300 s"). The server gives the other ranks a moment to say the same, then ends the job
     * naming the ranks that did not: they never arrived at the collective the others wait in. Does nothing in a job
     * that is not watched.
     */
    default void stalled(String where) {}

    /**
     * Adds where a communicator over this rendezvous stands ({@code place}, read at each beat) to this rank's
     * heartbeats, until the returned report closes; its server then knows where every rank is while the job runs.
     * By default a rendezvous has no server to tell, and the report does nothing.
     */
    default Progress.Report reportProgress(Supplier<Progress.Place> place) {
        return () -> {};
    }

    /** Leaves the job; idempotent. */
    @Override
    void close();

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
