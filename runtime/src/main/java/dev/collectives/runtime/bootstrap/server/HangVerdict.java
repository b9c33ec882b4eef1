package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Why a job hangs, read from its ranks' progress alone, with no record dumped: in one communicator, ranks have waited
 * longer than a setting in an entry that other ranks never enqueued ({@code rank 1 never enqueued #8 allReduce of
 * communicator formed (3 ranks); ranks 0 and 2 wait in it for 10.2 s}). A pure function of the progress and the time.
 *
 * @param communicator the communicator's name, as {@code trace} names it: "formed", "formed > shrunk #0 without rank 1"
 * @param size how many ranks it has
 * @param entry the entry the ranks wait in
 * @param call its call, as the waiting ranks recorded it ("allReduce"), empty where they did not say
 * @param neverEnqueued the job's ranks that did not enqueue it, lowest first
 * @param waiting the job's ranks that have waited in it past the setting, lowest first
 * @param waited how long the longest of them has waited
 */
public record HangVerdict(
        String communicator,
        int size,
        long entry,
        String call,
        List<Integer> neverEnqueued,
        List<Integer> waiting,
        Duration waited) {

    public HangVerdict {
        neverEnqueued = List.copyOf(neverEnqueued);
        waiting = List.copyOf(waiting);
    }

    /**
     * Where a rank stands in one communicator, and since when (on the clock of {@link #judge}'s {@code now}) it has
     * waited in its first entry not completed; {@code since} means nothing where nothing is pending.
     */
    public record Observed(Progress.Place place, long since) {}

    /**
     * The verdicts on the live ranks' progress {@code byRank} (each job rank's places, one per communicator) at
     * {@code nowNanos}: one per communicator whose first entry waited in, by ranks that have waited at least
     * {@code after}, some of its ranks never enqueued; none where every rank moves, or waits in what all enqueued
     * (that is the library's or the network's to tell, not a rank's absence).
     */
    public static List<HangVerdict> judge(Map<Integer, List<Observed>> byRank, long nowNanos, Duration after) {
        Map<Communicator, Map<Integer, Observed>> byCommunicator =
                new TreeMap<>(Comparator.comparing(Communicator::name).thenComparingInt(Communicator::size));
        byRank.forEach((rank, places) -> places.forEach(observed -> byCommunicator
                .computeIfAbsent(
                        new Communicator(
                                observed.place().communicator(),
                                observed.place().size()),
                        k -> new TreeMap<>())
                .put(rank, observed)));
        List<HangVerdict> verdicts = new ArrayList<>();
        byCommunicator.forEach((key, ranks) ->
                verdictOn(key.name(), key.size(), ranks, nowNanos, after).ifPresent(verdicts::add));
        return verdicts;
    }

    /** A communicator as the beats name it. */
    private record Communicator(String name, int size) {}

    private static Optional<HangVerdict> verdictOn(
            String communicator, int size, Map<Integer, Observed> ranks, long nowNanos, Duration after) {
        long entry = ranks.values().stream()
                .filter(o -> o.place().pending())
                .mapToLong(o -> o.place().completed() + 1)
                .min()
                .orElse(0);
        if (entry == 0) {
            return Optional.empty(); // nobody waits
        }
        List<Integer> neverEnqueued = new ArrayList<>();
        List<Integer> waiting = new ArrayList<>();
        long longest = 0;
        String call = "";
        for (Map.Entry<Integer, Observed> rank : ranks.entrySet()) {
            Progress.Place place = rank.getValue().place();
            long waited = nowNanos - rank.getValue().since();
            if (place.enqueued() < entry) {
                neverEnqueued.add(rank.getKey());
            } else if (place.pending() && place.completed() + 1 == entry && waited >= after.toNanos()) {
                waiting.add(rank.getKey());
                longest = Math.max(longest, waited);
                call = call.isEmpty() ? place.waitingIn() : call;
            }
        }
        return neverEnqueued.isEmpty() || waiting.isEmpty()
                ? Optional.empty()
                : Optional.of(new HangVerdict(
                        communicator, size, entry, call, neverEnqueued, waiting, Duration.ofNanos(longest)));
    }

    /** "rank 1 never enqueued #8 allReduce of communicator formed (3 ranks); ranks 0 and 2 wait in it for 10.2 s". */
    public String describe() {
        return ranks(neverEnqueued) + " never enqueued #" + entry + (call.isEmpty() ? "" : " " + call)
                + " of communicator " + communicator + " (" + size + " ranks); " + ranks(waiting)
                + (waiting.size() == 1 ? " waits" : " wait") + " in it for "
                + String.format(java.util.Locale.ROOT, "%.1f s", waited.toMillis() / 1000.0);
    }

    /** The same verdict, having lasted {@code waited}. */
    HangVerdict withWaited(Duration waited) {
        return new HangVerdict(communicator, size, entry, call, neverEnqueued, waiting, waited);
    }

    @Override
    public String toString() {
        return describe();
    }

    /** "rank 1", "ranks 0 and 2", "ranks 0, 2 and 3". */
    static String ranks(List<Integer> ranks) {
        if (ranks.size() == 1) {
            return "rank " + ranks.get(0);
        }
        String init =
                ranks.subList(0, ranks.size() - 1).stream().map(String::valueOf).collect(Collectors.joining(", "));
        return "ranks " + init + " and " + ranks.get(ranks.size() - 1);
    }
}
