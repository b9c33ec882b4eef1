package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Timeouts;
import dev.collectives.runtime.spi.JobRanks;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The job of processes that this rank's joined communicator belongs to, watched through the rendezvous its ranks
 * met at, which stays open while a communicator of the job lives here where it can watch (a TCP one). The library
 * itself says only that a peer failed ("remote process exited"), and nothing of a rank that never calls: the
 * rendezvous names the rank and the cause, and its news reaches this rank as it happens, also while it waits inside
 * the library. Every communicator of the job on this rank has its part of the watch ({@link Watched}): the joined
 * one, its children of {@code split} and {@code shrink}, and the one the survivors reform. The job's news aborts
 * each of them whose ranks include the rank at fault ({@link JobRanks#concerns}): once a peer's process died, the
 * library's communicators that include it cannot complete, while those that do not stay usable (a colour group
 * without the dead rank goes on). A rank that times out waiting says so, and the job's verdict names the ranks that
 * never arrived. The last communicator of the job here to close leaves the job.
 */
final class JobWatch {
    /** A communicator whose job is not watched: its ranks are threads of one process, or met through files. */
    static final Watched NONE = new JobWatch(null).new Watched(null, () -> {}, false);

    private final Rendezvous rendezvous;
    /** The communicators of the job on this rank that are not closed. */
    private final Set<Watched> watched = ConcurrentHashMap.newKeySet();
    /** The communicators the survivors of a death are forming in the library now. */
    private final Set<Forming> forming = ConcurrentHashMap.newKeySet();

    private final Object lock = new Object();
    /** Whether the rendezvous watches: not once the survivors of a death met through it, until a child joins. */
    private boolean armed;
    /** Counted down at the first news since the rendezvous last began watching; guarded by {@link #lock}. */
    private CountDownLatch heard = new CountDownLatch(1);
    /** The first news since the rendezvous last began watching; guarded by {@link #lock}. */
    private String news;

    private JobWatch(Rendezvous rendezvous) {
        this.rendezvous = rendezvous;
    }

    /**
     * Watches the job through {@code rendezvous} for the job's own communicator, which holds {@code ranks} of it and
     * which {@code onFailure} aborts behind; where the rendezvous cannot watch, closes it and returns {@link #NONE}.
     */
    static Watched start(Rendezvous rendezvous, JobRanks ranks, Runnable onFailure) {
        Watched joined = NONE;
        try {
            joined = new JobWatch(rendezvous).join(ranks, onFailure, true);
        } finally {
            if (joined == NONE) {
                rendezvous.close();
            }
        }
        return joined;
    }

    /** A communicator of the job here from now on; the rendezvous watches again if the survivors met through it. */
    private Watched join(JobRanks ranks, Runnable onFailure, boolean jobsOwn) {
        Watched member = new Watched(ranks, onFailure, jobsOwn);
        watched.add(member);
        synchronized (lock) {
            if (armed) {
                return member;
            }
            heard = new CountDownLatch(1);
            news = null;
            armed = true;
        }
        if (!rendezvous.watch(this::heard)) {
            watched.remove(member);
            return NONE;
        }
        return member;
    }

    /** The rendezvous's news, on its thread: every communicator here that it concerns is aborted behind. */
    private void heard(Cause failure) {
        synchronized (lock) {
            if (news == null) {
                news = failure.text();
                heard.countDown();
            }
        }
        for (Watched member : List.copyOf(watched)) {
            if (member.ranks.concerns(failure.ranks())) {
                member.failed(failure);
            }
        }
        forming.forEach(f -> f.heard(failure));
    }

    /** Watches the job from now on for every communicator here, unless it is watched already. */
    private void arm() {
        synchronized (lock) {
            if (armed) {
                return;
            }
            heard = new CountDownLatch(1);
            news = null;
            armed = true;
        }
        rendezvous.watch(this::heard);
    }

    /**
     * A communicator the survivors of a death form in the library, which holds {@code ranks} of the job: a death
     * among them, or the job's end, while the library forms it ends the library's wait ({@link #requireNoDeath}).
     */
    final class Forming implements AutoCloseable {
        private final JobRanks ranks;
        private final int rank;
        private final String call;
        /** The death the survivors recover from. */
        private final String recoveringFrom;

        private volatile Cause death;

        private Forming(JobRanks ranks, int rank, String call, String recoveringFrom) {
            this.ranks = ranks;
            this.rank = rank;
            this.call = call;
            this.recoveringFrom = recoveringFrom;
        }

        private void heard(Cause failure) {
            if (death == null && ranks.concerns(failure.ranks())) {
                death = failure;
            }
        }

        /** Throws, naming both deaths, once a rank of the communicator being formed died (or the job ended). */
        void requireNoDeath() {
            Cause second = death;
            if (second != null) {
                throw CollectivesException.library(
                        Result.REMOTE_ERROR,
                        rank,
                        call,
                        "the job failed again while the survivors formed their communicator: " + second.text()
                                + (recoveringFrom == null ? "" : "; they were recovering from: " + recoveringFrom)
                                + "; the communicator being formed was aborted: the survivors may recover again, "
                                + "from every rank that died");
            }
        }

        @Override
        public void close() {
            forming.remove(this);
        }
    }

    /** The first news since the rendezvous last began watching, waiting for it at most {@code wait}. */
    private Optional<String> awaitNews(Duration wait) {
        CountDownLatch latch;
        synchronized (lock) {
            latch = heard;
        }
        await(latch, wait);
        synchronized (lock) {
            return Optional.ofNullable(news);
        }
    }

    private static void await(CountDownLatch latch, Duration wait) {
        try {
            latch.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code member} is gone; the last communicator of the job here leaves the job (idempotent). */
    private void leave(Watched member) {
        if (watched.remove(member) && watched.isEmpty()) {
            rendezvous.close();
        }
    }

    /**
     * One communicator's part of the job's watch: the job's ranks it holds, what aborts it behind, and why the job
     * failed as far as it concerns it, named in its numbering too ({@link JobRanks#named}).
     */
    final class Watched {
        private final JobRanks ranks;
        private final Runnable onFailure;
        /**
         * Whether this is the job's own communicator (joined or reformed), not a child: its abort ends the job, and
         * its stall asks the job for a verdict, which rank 0 gives over every rank of the job.
         */
        private final boolean jobsOwn;

        private final CountDownLatch failed = new CountDownLatch(1);
        private volatile String failure;

        private Watched(JobRanks ranks, Runnable onFailure, boolean jobsOwn) {
            this.ranks = ranks;
            this.onFailure = onFailure;
            this.jobsOwn = jobsOwn;
        }

        private void failed(Cause why) {
            synchronized (this) {
                if (failure != null) {
                    return;
                }
                failure = ranks.named(why.ranks(), why.text());
            }
            failed.countDown();
            onFailure.run();
        }

        /** The job's ranks this communicator holds; null where the job is not watched. */
        JobRanks ranks() {
            return ranks;
        }

        /**
         * The part of a child whose ranks {@code childOf} tells from this communicator's, which {@code onFailure}
         * aborts behind; {@link #NONE} where this job is not watched.
         */
        Watched child(UnaryOperator<JobRanks> childOf, Runnable onFailure) {
            return rendezvous == null ? NONE : join(childOf.apply(ranks), onFailure, false);
        }

        /**
         * The part of the job's own communicator formed anew, which holds {@code ranks} of the job: the survivors with
         * the replacements of the dead ranks, or the ranks with the processes that joined.
         */
        Watched reformed(JobRanks ranks, Runnable onFailure) {
            return rendezvous == null ? NONE : join(ranks, onFailure, true);
        }

        /**
         * The survivors of a death agreed and shared the id of the communicator they form, which holds {@code ranks}
         * of the job and which rank {@code rank} forms by {@code call}: the rendezvous watches the job again from now
         * on, not only once that communicator formed, so that a death among {@code ranks} while the library forms it
         * reaches this rank within the time the job takes to declare it ({@link Forming#requireNoDeath}, which the
         * library's wait polls), not at the library's own timeout.
         */
        Forming whileForming(JobRanks ranks, int rank, String call) {
            Forming watch = new Forming(ranks, rank, call, failure);
            if (rendezvous != null) {
                forming.add(watch);
                arm();
            }
            return watch;
        }

        /** Why the job failed, as it concerns this communicator, once the rendezvous said so. */
        Optional<String> failure() {
            return Optional.ofNullable(failure);
        }

        /**
         * Why the job failed, waiting for it at most {@link Timeouts#causeWait()}: the library reported a failure
         * that the rendezvous may be about to name.
         */
        Optional<String> cause() {
            return awaitFailure(Timeouts::causeWait);
        }

        /**
         * Why the job failed, waiting for it at most {@link Timeouts#deathWait()}: a shrink recovers from that
         * death, which the library may have seen before the rendezvous declared it.
         */
        Optional<String> death() {
            return awaitFailure(Timeouts::deathWait);
        }

        private Optional<String> awaitFailure(Function<Timeouts, Duration> wait) {
            if (rendezvous != null) {
                await(failed, wait.apply(rendezvous.timeouts()));
            }
            return failure();
        }

        /**
         * This rank timed out waiting at {@code where} in the job's own communicator: tells the job, and returns its
         * verdict once rank 0 has given it (at most {@link Timeouts#verdictWait()}). A child's stall is its own: the verdict
         * would count every rank of the job, also those that never call the child.
         */
        Optional<String> stalled(String where) {
            if (rendezvous == null || !jobsOwn) {
                return Optional.empty();
            }
            rendezvous.stalled(where);
            return awaitNews(rendezvous.timeouts().verdictWait());
        }

        /**
         * Lets the survivors of the death the watch heard of meet again through the job's rendezvous, which it
         * returns; throws why they cannot, after {@code refused} (the start of the message, e.g. "shrink: ...").
         */
        Rendezvous resumeAmongSurvivors(int rank, String refused) {
            if (rendezvous == null) {
                throw CollectivesException.usage(
                        rank,
                        refused + "; the survivors form a new communicator through the job's tcp:// rendezvous, and "
                                + "this communicator has none (its ranks are threads of one process, or its job met "
                                + "through a file rendezvous)");
            }
            Optional<String> why = rendezvous.resumeAmongSurvivors();
            if (why.isPresent()) {
                throw CollectivesException.usage(
                        rank,
                        refused + "; the survivors cannot form a new communicator through the job's rendezvous at "
                                + rendezvous.where() + ": " + why.get());
            }
            synchronized (lock) {
                armed = false; // the rendezvous serves the survivors now: the communicator they form watches anew
            }
            return rendezvous;
        }

        /**
         * Stops the watch so that the job's ranks grow it through its rendezvous, which it returns; throws why they
         * cannot (a death or the job's end came first), after {@code refused} ("grow: ..."). Where the growth fails and
         * the job goes on, {@link #watchAgain} watches it again.
         */
        Rendezvous unwatchToGrow(int rank, String refused) {
            if (rendezvous == null) {
                throw CollectivesException.usage(
                        rank, refused + ": its job has no tcp:// rendezvous to take in processes that join");
            }
            synchronized (lock) {
                armed = false; // the rendezvous serves the growth now: the communicator grown watches anew
            }
            Optional<String> why = rendezvous.unwatch();
            if (why.isPresent()) {
                throw CollectivesException.usage(
                        rank, refused + ": the job's rendezvous at " + rendezvous.where() + " says " + why.get());
            }
            return rendezvous;
        }

        /** The growth failed and the job goes on at its size: the rendezvous watches it again for every communicator. */
        void watchAgain() {
            arm();
        }

        /**
         * This rank ends the job, where this is the job's own communicator: the others hear {@code reason} with this
         * rank's number. A child's abort stops this rank's use of it only.
         */
        void abort(String reason) {
            if (rendezvous != null && jobsOwn) {
                rendezvous.abort(reason);
            }
        }

        /** Leaves the job's watch (after the communicator is gone, or handed the job over); idempotent. */
        void leave() {
            if (rendezvous != null) {
                JobWatch.this.leave(this);
            }
        }
    }
}
