package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Progress;
import dev.collectives.runtime.bootstrap.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * A job as its server sees it while it runs, for people: every rank's phase, host, last heartbeat and progress, the
 * hang verdict, the deaths, the recoveries with their phases and the claims turned away. It is the server's
 * {@link JobObserver}; its page and metrics read {@link #snapshot}. It gives the hang verdict itself, at each beat,
 * and logs it once each time it changes. The clock is given, so that tests can move it.
 */
public final class JobView implements JobObserver {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");
    /** How many refused claims and finished recoveries it keeps (the counts go on). */
    private static final int KEPT = 20;

    private final String server;
    private final Duration hangVerdictAfter;
    private final LongSupplier clock;
    private final long startNanos;

    private int size;
    private final Map<Integer, Rank> ranks = new TreeMap<>();
    private final List<Death> deaths = new ArrayList<>();
    private final List<Recovery> recoveries = new ArrayList<>();
    private int recoveriesEver;
    private final List<Event> refused = new ArrayList<>();
    private int refusedEver;
    /** The communicators any rank reported (by name), for telling a recovery's new one. */
    private final Map<String, Boolean> communicatorsSeen = new HashMap<>();

    private List<HangVerdict> verdicts = List.of();
    /** When the verdict was last given: a beat gives it again only a tenth of its wait later (it weighs every rank). */
    private long judgedAt;

    private boolean judged;
    private String ended;

    public JobView(String server, int size, Duration hangVerdictAfter, LongSupplier clock) {
        this.server = server;
        this.size = size;
        this.hangVerdictAfter = hangVerdictAfter;
        this.clock = clock;
        this.startNanos = clock.getAsLong();
    }

    /** The hang verdict's setting ({@link Settings#HANG_VERDICT}), else its default. */
    static Duration hangVerdictSetting() {
        return Settings.ofProcess()
                .option(Settings.HANG_VERDICT)
                .map(text -> Settings.parseDuration(text.value(), text.source()))
                .orElse(Settings.DEFAULT_HANG_VERDICT);
    }

    /** One rank's place in the job; guarded by the view. */
    private static final class Rank {
        String host = "";
        Arrival arrival = Arrival.LAUNCHED;
        String phase = "joined";
        long lastBeat = -1;
        long beats;
        int deaths;
        List<HangVerdict.Observed> places = List.of();
    }

    private record Event(String what, long nanos) {}

    private record Death(int rank, Fate fate, String why, long nanos) {}

    private static final class Recovery {
        final String cause;
        final long startNanos;
        final List<Event> phases = new ArrayList<>();
        /** Whether an operation was answered since it began. */
        boolean answered;

        boolean done;

        Recovery(String cause, long startNanos) {
            this.cause = cause;
            this.startNanos = startNanos;
        }
    }

    @Override
    public synchronized void size(int size, long nanos) {
        this.size = size;
    }

    @Override
    public synchronized void joined(int rank, String host, Arrival arrival, long nanos) {
        Rank r = ranks.computeIfAbsent(rank, k -> new Rank());
        r.host = host == null ? "" : host;
        r.arrival = arrival;
        r.phase = arrival == Arrival.JOINER ? "waits to join" : "running";
        r.lastBeat = nanos;
        r.places = List.of();
        if (arrival == Arrival.REPLACEMENT) {
            phase("the replacement of rank " + rank + " joined", nanos);
        }
    }

    @Override
    public synchronized void beat(int rank, Progress progress, long nanos) {
        Rank r = ranks.computeIfAbsent(rank, k -> new Rank());
        r.lastBeat = nanos;
        r.beats++;
        List<HangVerdict.Observed> places = new ArrayList<>();
        for (Progress.Place place : progress.communicators()) {
            places.add(new HangVerdict.Observed(place, waitingSince(r, place, nanos)));
            if (communicatorsSeen.put(place.communicator(), Boolean.TRUE) == null) {
                newCommunicator(rank, place, nanos);
            }
        }
        r.places = List.copyOf(places);
        if (!judged || nanos - judgedAt >= hangVerdictAfter.toNanos() / 10) {
            judge(nanos);
        }
    }

    /** Since when rank {@code r} waits in its first pending entry of {@code place}'s communicator: kept while it does. */
    private static long waitingSince(Rank r, Progress.Place place, long nanos) {
        for (HangVerdict.Observed before : r.places) {
            Progress.Place was = before.place();
            if (was.communicator().equals(place.communicator())
                    && was.size() == place.size()
                    && was.pending()
                    && was.completed() == place.completed()) {
                return before.since();
            }
        }
        return nanos;
    }

    /** A communicator no rank reported before: the end of a recovery under way, if one is. */
    private void newCommunicator(int rank, Progress.Place place, long nanos) {
        Recovery open = openRecovery();
        if (open != null) {
            open.phases.add(new Event(
                    "rank " + rank + " runs communicator " + place.communicator() + " (" + place.size() + " ranks)",
                    nanos));
            open.done = true;
        }
    }

    /** Gives the hang verdict on the live ranks' progress at {@code nanos}, logging it where it changed. */
    private void judge(long nanos) {
        Map<Integer, List<HangVerdict.Observed>> live = new TreeMap<>();
        ranks.forEach((rank, r) -> {
            if (r.phase.equals("running")) {
                live.put(rank, r.places);
            }
        });
        List<HangVerdict> now = HangVerdict.judge(live, nanos, hangVerdictAfter);
        if (!sameHang(now, verdicts)) {
            now.forEach(v ->
                    LOG.log(System.Logger.Level.WARNING, "the job that " + server + " serves hangs: " + v.describe()));
        }
        verdicts = now;
        judged = true;
        judgedAt = nanos;
    }

    /** Whether two verdicts name the same hang (they differ only in how long it has lasted). */
    private static boolean sameHang(List<HangVerdict> a, List<HangVerdict> b) {
        return a.stream()
                .map(v -> v.withWaited(Duration.ZERO))
                .toList()
                .equals(b.stream().map(v -> v.withWaited(Duration.ZERO)).toList());
    }

    @Override
    public synchronized void gone(int rank, Fate fate, String why, long nanos) {
        Rank r = ranks.computeIfAbsent(rank, k -> new Rank());
        r.phase = switch (fate) {
            case DIED -> "died";
            case FENCED -> "excluded";
            case LEFT -> "left";
        };
        if (fate == Fate.LEFT) {
            return;
        }
        r.deaths++;
        deaths.add(new Death(rank, fate, why, nanos));
        Recovery open = openRecovery();
        if (open == null) {
            startRecovery("the " + (fate == Fate.DIED ? "death" : "exclusion") + " of rank " + rank, nanos);
        } else {
            open.phases.add(new Event("rank " + rank + " " + r.phase + " too", nanos));
        }
    }

    @Override
    public synchronized void operationStarted(String operation, long nanos) {
        if (operation.startsWith("growth")) {
            startRecovery(operation, nanos);
        } else if (operation.startsWith("reunion")) {
            phase(operation + " began", nanos);
        }
    }

    /**
     * The first operation answered in a recovery is a phase of it (the survivors met), and so is every reunion or
     * growth; the allgathers after the first are the survivors' ordinary traffic (a sim's data), not phases.
     */
    @Override
    public synchronized void operationAnswered(String operation, long nanos) {
        Recovery open = openRecovery();
        if (open != null && (!open.answered || operation.startsWith("reunion") || operation.startsWith("growth"))) {
            open.answered = true;
            open.phases.add(new Event(operation + " answered", nanos));
        }
    }

    @Override
    public synchronized void refused(String why, long nanos) {
        refusedEver++;
        refused.add(new Event(why, nanos));
        if (refused.size() > KEPT) {
            refused.remove(0);
        }
    }

    @Override
    public synchronized void ended(String reason, long nanos) {
        ended = reason;
    }

    private void startRecovery(String cause, long nanos) {
        recoveriesEver++;
        recoveries.add(new Recovery(cause, nanos));
        if (recoveries.size() > KEPT) {
            recoveries.remove(0);
        }
    }

    private void phase(String what, long nanos) {
        Recovery open = openRecovery();
        if (open != null) {
            open.phases.add(new Event(what, nanos));
        }
    }

    private Recovery openRecovery() {
        return recoveries.isEmpty() || recoveries.get(recoveries.size() - 1).done
                ? null
                : recoveries.get(recoveries.size() - 1);
    }

    // ---- what the page and the metrics read ------------------------------------------------------------------

    /** A rank as the page shows it; {@code heartbeatAge} is null where it never beat. */
    record RankRow(
            int rank,
            String host,
            String phase,
            Duration heartbeatAge,
            long beats,
            int deaths,
            List<Progress.Place> places) {}

    /** A death: when, from the server's start. */
    record DeathRow(int rank, String fate, String why, Duration at) {}

    /** A phase of a recovery, from its start. */
    record PhaseRow(String what, Duration after) {}

    record RecoveryRow(String cause, Duration at, List<PhaseRow> phases, boolean done) {}

    record RefusedRow(String why, Duration at) {}

    /** The job now. */
    record Snapshot(
            String server,
            int size,
            Duration age,
            String ended,
            Duration hangVerdictAfter,
            List<RankRow> ranks,
            List<HangVerdict> verdicts,
            List<DeathRow> deaths,
            List<RecoveryRow> recoveries,
            int recoveriesEver,
            List<RefusedRow> refused,
            int refusedEver) {}

    /** The job now; the hang verdict is given again at this moment (a job whose ranks all wait beats on). */
    synchronized Snapshot snapshot() {
        long now = clock.getAsLong();
        judge(now);
        List<RankRow> rankRows = new ArrayList<>();
        ranks.forEach((rank, r) -> rankRows.add(new RankRow(
                rank,
                r.host,
                r.phase,
                r.lastBeat < 0 || !r.phase.equals("running") ? null : Duration.ofNanos(now - r.lastBeat),
                r.beats,
                r.deaths,
                r.places.stream().map(HangVerdict.Observed::place).toList())));
        return new Snapshot(
                server,
                size,
                since(startNanos, now),
                ended,
                hangVerdictAfter,
                rankRows,
                verdicts,
                deaths.stream()
                        .map(d -> new DeathRow(
                                d.rank(),
                                d.fate().name().toLowerCase(java.util.Locale.ROOT),
                                d.why(),
                                since(startNanos, d.nanos())))
                        .toList(),
                recoveries.stream()
                        .map(r -> new RecoveryRow(
                                r.cause,
                                since(startNanos, r.startNanos),
                                r.phases.stream()
                                        .map(p -> new PhaseRow(p.what(), since(r.startNanos, p.nanos())))
                                        .toList(),
                                r.done))
                        .toList(),
                recoveriesEver,
                refused.stream()
                        .map(e -> new RefusedRow(e.what(), since(startNanos, e.nanos())))
                        .toList(),
                refusedEver);
    }

    private static Duration since(long from, long to) {
        return Duration.ofNanos(Math.max(0, to - from));
    }
}
