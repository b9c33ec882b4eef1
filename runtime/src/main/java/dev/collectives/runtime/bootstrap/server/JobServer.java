package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.HostedServer;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.Timeouts;
import dev.collectives.runtime.bootstrap.wire.EventLoop;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import dev.collectives.runtime.bootstrap.wire.ServedOperations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The server of a TCP rendezvous, which every rank, rank 0 too, joins as a member: hosted by rank 0's process
 * ({@link #inRankZeroProcess}), whose death then ends the job, or by a process of its own ({@link #start}, which
 * {@link dev.collectives.runtime.RendezvousServer} wraps for users), which outlives any rank.
 *
 * <p>One thread serves every member ({@link ServerLoop}), however many: it admits them, takes every live rank's
 * message for each operation and answers each rank with all of them ({@link ServedOperation}); the ranks check the
 * answer themselves ({@link ServedOperations}). An operation that needs every rank (all but an allgather of
 * survivors, a reunion and a growth) ends the job when a rank is gone or closed its rendezvous. It watches the job
 * ({@link ServedJob}): a rank that ends the job ends it on every rank, a rank whose process dies once the job formed
 * is news to the ranks that watch (they may meet again without it), ranks that stall come to a verdict naming those
 * that never arrived, and a process that proves the token replaces a dead rank at the survivors' next reunion. A
 * standalone server serves until every rank has left or died, or the job ended ({@link #awaitEnd}); one hosted by
 * rank 0 until rank 0 closes it. Other threads wait for what the loop publishes after each round of its events.
 */
public final class JobServer implements HostedServer {
    /** How long the ranks may take to join, and each operation, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_TIMEOUT = Settings.DEFAULT_TIMEOUT;
    /** How long a rank may be silent before it is declared dead, unless said otherwise: as the ranks' own default. */
    public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Settings.DEFAULT_HEARTBEAT_TIMEOUT;
    /** How long closing waits for what the members are told last to go out. */
    private static final Duration LAST_WORDS = Duration.ofSeconds(2);

    private final RendezvousEndpoint endpoint;
    /** Whether rank 0's process hosts this server (else it runs in a process of its own). */
    final boolean hostedByRankZero;
    /** The server, for messages: "rank 0 at tcp://host:port", "the rendezvous server at tcp://host:port". */
    final String name;

    /** Every wait of this server, derived from the operation and heartbeat timeouts. */
    private final Timeouts timeouts;
    /** Until when the ranks may join; also how long a failed job's late arrivals are answered at least. */
    private final Deadline joinDeadline;

    private final ServerLoop loop;
    private final ServedJob job;
    /** Who watches the job from outside: its live view, hang verdict and page. */
    final JobView view;
    /** The job's live page, where the user turned it on. */
    private Optional<JobPage> page = Optional.empty();

    /** What the loop published last: what waiting threads see. Guarded by this. */
    private Seen seen = new Seen(null, false, false, false, -1, 0);

    private List<String> deaths = List.of();
    private boolean closing;

    /** What the loop thread publishes of the job for other threads after each round of its events. */
    record Seen(Cause fatal, boolean closed, boolean formed, boolean over, int awaited, int joining) {}

    private JobServer(
            RendezvousEndpoint endpoint,
            int size,
            JobToken token,
            Timeouts timeouts,
            Duration handshakeLimit,
            boolean hostedByRankZero,
            Duration hangVerdictAfter) {
        this.endpoint = endpoint;
        this.timeouts = timeouts;
        this.hostedByRankZero = hostedByRankZero;
        this.name = hostedByRankZero ? "rank 0 at " + endpoint : "the rendezvous server at " + endpoint;
        this.joinDeadline = Deadline.after(timeouts.operation());
        this.view = new JobView(name, size, hangVerdictAfter, System::nanoTime);
        String who = hostedByRankZero ? "rank 0" : "the rendezvous server";
        try {
            this.loop = new ServerLoop(
                    TcpAdmission.listen(endpoint, who, Math.max(TcpAdmission.MAX_HANDSHAKES, size)),
                    "collectives-rendezvous-server " + endpoint);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.job = new ServedJob(this, loop, token, timeouts, handshakeLimit, size);
    }

    /**
     * Serves a job of {@code size} ranks at {@code endpoint} in a process of its own, admitting those that prove they
     * hold {@code jobToken}; each operation, and the joining, within {@code timeout}.
     */
    public static JobServer start(RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout) {
        return start(endpoint, size, jobToken, timeout, DEFAULT_HEARTBEAT_TIMEOUT);
    }

    /**
     * As {@link #start(RendezvousEndpoint, int, String, Duration)}; a rank that sends nothing, not even a heartbeat,
     * for {@code heartbeatTimeout} is declared dead and excluded from the job (the ranks beat at a sixth of it).
     */
    public static JobServer start(
            RendezvousEndpoint endpoint, int size, String jobToken, Duration timeout, Duration heartbeatTimeout) {
        return start(endpoint, size, jobToken, timeout, heartbeatTimeout, JobView.hangVerdictSetting());
    }

    /**
     * As {@link #start(RendezvousEndpoint, int, String, Duration, Duration)}; ranks that wait {@code hangVerdictAfter}
     * in an entry another rank never enqueued are named in the hang verdict.
     */
    public static JobServer start(
            RendezvousEndpoint endpoint,
            int size,
            String jobToken,
            Duration timeout,
            Duration heartbeatTimeout,
            Duration hangVerdictAfter) {
        if (endpoint.kind() != RendezvousEndpoint.Kind.TCP || size < 1) {
            throw BootstrapException.settings(
                    -1, "a rendezvous server serves a tcp:// endpoint for one rank or more, not " + endpoint);
        }
        Timeouts timeouts = new Timeouts(timeout, heartbeatTimeout);
        return started(new JobServer(
                endpoint, size, JobToken.of(jobToken, -1), timeouts, timeouts.handshake(), false, hangVerdictAfter));
    }

    /**
     * The server rank 0's process hosts for its job, which rank 0 then joins as every rank does; a rank silent for
     * {@code heartbeatTimeout} is declared dead and excluded, as by a server of its own.
     */
    public static JobServer inRankZeroProcess(
            RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout, Duration heartbeatTimeout) {
        Timeouts timeouts = new Timeouts(timeout, heartbeatTimeout);
        return inRankZeroProcess(endpoint, size, token, timeout, heartbeatTimeout, timeouts.handshake());
    }

    /** As {@link #inRankZeroProcess(RendezvousEndpoint, int, JobToken, Duration, Duration)}; tests choose the handshake limit. */
    public static JobServer inRankZeroProcess(
            RendezvousEndpoint endpoint,
            int size,
            JobToken token,
            Duration timeout,
            Duration heartbeatTimeout,
            Duration handshakeLimit) {
        return started(new JobServer(
                endpoint,
                size,
                token,
                new Timeouts(timeout, heartbeatTimeout),
                handshakeLimit,
                true,
                JobView.hangVerdictSetting()));
    }

    private static JobServer started(JobServer server) {
        try {
            server.page = JobPage.ifTurnedOn(server.view, server.endpoint.toString());
        } catch (RuntimeException e) {
            EventLoop.closeQuietly(server.loop::stopListening);
            throw e;
        }
        server.loop.start(server.job);
        server.loop.execute(server.job::start);
        return server;
    }

    /** Where it serves. */
    public RendezvousEndpoint endpoint() {
        return endpoint;
    }

    /** What this server tells of the job as it runs: its live view, which its page and metrics show. */
    public JobView view() {
        return view;
    }

    /** Why the job ended, or null while it runs. */
    public synchronized String ended() {
        return seen.fatal() != null
                ? "the job at " + endpoint + " ended: " + seen.fatal().text()
                : null;
    }

    /** How long a member may be silent before it is declared dead. */
    public Duration heartbeatTimeout() {
        return timeouts.heartbeat();
    }

    /** Where the job's live page is, where the user turned it on ({@link Settings#JOB_PAGE}). */
    public Optional<java.net.URI> page() {
        return page.map(JobPage::address);
    }

    /** The loop thread publishes what other threads see of the job. */
    synchronized void publish(Seen now) {
        if (!now.equals(seen)) {
            seen = now;
            notifyAll();
        }
    }

    /** The loop thread publishes the deaths so far. */
    synchronized void published(List<String> deathsSoFar) {
        deaths = deathsSoFar;
    }

    /**
     * Returns once every rank has joined: a rank's death before then ends the job, as while joining; tests order a
     * death after it by this.
     */
    public synchronized void awaitJoined() throws InterruptedException {
        while (!seen.formed()) {
            wait();
        }
    }

    /**
     * Waits until every rank has joined, and returns null; or why the job ended first (the ranks that did not join
     * by the deadline for joining among the reasons).
     */
    public synchronized String awaitFormed() {
        try {
            while (seen.fatal() == null && !seen.closed() && !seen.formed()) {
                wait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "the rendezvous server at " + endpoint + " was interrupted";
        }
        return seen.fatal() != null
                ? seen.fatal().text()
                : seen.closed() ? "the rendezvous at " + endpoint + " was closed" : null;
    }

    /** Returns once {@code count} processes wait to join the job at its next growth: tests order their events by it. */
    public synchronized void awaitJoining(int count) throws InterruptedException {
        while (seen.joining() != count) {
            wait();
        }
    }

    /** Returns once an operation waits for member {@code rank}'s message: tests order their events by it. */
    public synchronized void awaitWaitingFor(int rank) throws InterruptedException {
        while (seen.awaited() != rank) {
            wait();
        }
    }

    /**
     * Waits until the job is over, and says how it ended: empty once every rank has left or died (with the deaths
     * listed by {@link #deaths}), else why the job failed (ranks that did not join within the timeout among them).
     */
    public synchronized Optional<String> awaitEnd() throws InterruptedException {
        while (seen.fatal() == null && !seen.over()) {
            wait();
        }
        return Optional.ofNullable(seen.fatal()).map(Cause::text);
    }

    /** How many heartbeats this server has sent to its ranks so far (each a message of 45 bytes). */
    public long heartbeatsSent() {
        return job.beatsSent.sum();
    }

    /** How many heartbeats this server has received from its ranks so far (each a message of 45 bytes). */
    public long heartbeatsReceived() {
        return job.beatsReceived.sum();
    }

    /** Why each rank that died while the job ran is gone, in the order they died. */
    public synchronized List<String> deaths() {
        return deaths;
    }

    /** Why rank {@code rank} was excluded from the job, or null: as the loop thread knows it now. */
    public String exclusion(int rank) throws InterruptedException, ExecutionException {
        CompletableFuture<String> exclusion = new CompletableFuture<>();
        loop.execute(() -> {
            Slot slot = job.roster.slot(rank);
            exclusion.complete(slot != null ? slot.exclusion : null);
        });
        return exclusion.get();
    }

    /** Ends the job for {@code reason}, once: every member is told why (rank 0's process, when rank 0 fails). */
    @Override
    public void endJob(Cause reason) {
        loop.execute(() -> job.endJob(reason));
    }

    /**
     * Stops serving: the members' connections end once what they are told last went out. Where rank 0 hosts it, rank
     * 0 closes a job that ran to its end: each member of a watched job hears so (or a death it has not heard of yet),
     * so that its watcher takes it for no failure; elsewhere a job still running fails, naming this server. The
     * listening socket closes now, unless the job failed while ranks were missing: then it stays until each of them
     * has been told why, or for one timeout (at least until the deadline for joining), and holds this JVM's exit
     * until each has been told or the deadline for joining has passed.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        page.ifPresent(JobPage::close);
        Deadline answering = Deadline.after(timeouts.operation());
        Deadline lateUntil = answering.remainingMillis() >= joinDeadline.remainingMillis() ? answering : joinDeadline;
        CompletableFuture<Boolean> answeringLate = new CompletableFuture<>();
        loop.execute(() -> answeringLate.complete(job.close(lateUntil)));
        try {
            if (answeringLate.get()) {
                if (!joinDeadline.expired()) {
                    holdExitUntilStopped(joinDeadline);
                }
                return;
            }
            if (!loop.awaitStopped(LAST_WORDS)) {
                loop.stop();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            loop.stop();
        } catch (ExecutionException e) {
            loop.stop();
        }
    }

    /**
     * Holds this JVM's exit (a shutdown hook) until the loop stops or {@code limit} passes, so that late arrivals are
     * still answered when the process exits, even through {@code System.exit}, right after its job failed.
     */
    private void holdExitUntilStopped(Deadline limit) {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                loop.awaitStopped(Duration.ofMillis(limit.remainingMillis()));
                            } catch (InterruptedException e) {
                                // the JVM is being torn down regardless
                            }
                        },
                        "collectives-bootstrap-late-arrivals"));
    }
}
