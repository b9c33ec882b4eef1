package dev.collectives.tools.trace;

import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.FlightRecord.State;
import dev.collectives.tools.trace.FlightDumps.Dump;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The ranks' records of one communicator of one job, lined up by entry number: where the ranks parted
 * ({@link #findings}), where each stands ({@link #stuck}) and a table per rank ({@link #table}). A communicator is
 * known by its job and lineage, never by its size alone, so that the records of a job's communicator and of the one
 * its survivors made after a death are never mixed; the latter is the former's recovery ({@link #recoveredFrom}).
 */
final class CommunicatorTrace {
    /** The last step of a communicator that survivors made from a failed one. */
    private static final List<String> RECOVERIES = List.of("shrunk", "reformed");

    private final String job;
    private final List<String> lineage;
    private final int size;
    /** Each rank's entries by number; a rank without a dump is missing. */
    private final Map<Integer, Map<Long, Entry>> byRank = new TreeMap<>();

    private final Map<Integer, Dump> dumps = new TreeMap<>();
    /** The communicator this one recovered from, and the one recovered from this one, where their records are here. */
    private CommunicatorTrace recoveredFrom;

    private CommunicatorTrace recoveredAs;

    private CommunicatorTrace(List<Dump> ranksDumps) {
        FlightRecord first = ranksDumps.get(0).record();
        this.job = first.job();
        this.lineage = first.lineage();
        this.size = ranksDumps.stream().mapToInt(d -> d.record().size()).max().orElse(0);
        for (Dump dump : ranksDumps) {
            Map<Long, Entry> entries = new LinkedHashMap<>();
            dump.record().entries().forEach(e -> entries.put(e.seq(), e));
            byRank.put(dump.record().rank(), entries);
            dumps.put(dump.record().rank(), dump);
        }
    }

    /** The dumps of {@code all}, one trace per communicator of each job, each recovery linked to what it recovered. */
    static List<CommunicatorTrace> of(List<Dump> all) {
        Map<List<String>, List<Dump>> byCommunicator = new LinkedHashMap<>();
        for (Dump dump : all) {
            byCommunicator
                    .computeIfAbsent(key(dump.record().job(), dump.record().lineage()), k -> new ArrayList<>())
                    .add(dump);
        }
        Map<List<String>, CommunicatorTrace> traces = new LinkedHashMap<>();
        byCommunicator.forEach((key, dumps) -> traces.put(key, new CommunicatorTrace(dumps)));
        for (CommunicatorTrace trace : traces.values()) {
            int steps = trace.lineage.size();
            String last = trace.lineage.get(steps - 1);
            CommunicatorTrace parent = traces.get(key(trace.job, trace.lineage.subList(0, steps - 1)));
            if (parent != null && RECOVERIES.stream().anyMatch(last::startsWith)) {
                trace.recoveredFrom = parent;
                parent.recoveredAs = trace;
            }
        }
        return List.copyOf(traces.values());
    }

    private static List<String> key(String job, List<String> lineage) {
        List<String> key = new ArrayList<>(List.of(job));
        key.addAll(lineage);
        return key;
    }

    /** "formed > shrunk #0 without rank 1" */
    String communicator() {
        return String.join(" > ", lineage);
    }

    /** "communicator formed > shrunk #0 without rank 1 (job 3fa2c1d0e9b7, 2 ranks)" */
    String title() {
        return "communicator " + communicator() + " (job " + job + ", " + size + " ranks)";
    }

    /**
     * How it ended, where a recovery links it to another: "failed; its survivors recovered as formed > shrunk #0
     * without rank 1", "recovered from the failure of formed".
     */
    Optional<String> recovery() {
        if (recoveredAs != null) {
            return Optional.of("failed; its survivors recovered as " + recoveredAs.communicator());
        }
        return Optional.ofNullable(recoveredFrom).map(from -> "recovered from the failure of " + from.communicator());
    }

    int size() {
        return size;
    }

    /**
     * Where the ranks parted, each a sentence: records that disagree on the communicator's size, ranks that wrote no
     * record (dead, where the survivors recovered without them), the first entry that ranks called with different
     * calls or sizes, and the ranks that never enqueued an entry the others did. Empty when they agree.
     */
    List<String> findings() {
        List<String> findings = new ArrayList<>();
        Map<Integer, List<Integer>> ranksBySize = new TreeMap<>();
        dumps.forEach((rank, dump) -> ranksBySize
                .computeIfAbsent(dump.record().size(), s -> new ArrayList<>())
                .add(rank));
        if (ranksBySize.size() > 1) {
            findings.add("its records disagree on its size: "
                    + ranksBySize.entrySet().stream()
                            .map(e ->
                                    ranks(e.getValue()) + (e.getValue().size() == 1 ? " says " : " say ") + e.getKey())
                            .collect(Collectors.joining("; "))
                    + " (records of several runs in one directory?)");
        }
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (!byRank.containsKey(r)) {
                missing.add(r);
            }
        }
        if (!missing.isEmpty() && recoveredAs != null) {
            findings.add(ranks(missing) + " wrote no flight record and "
                    + (missing.size() == 1
                            ? "died: the survivors went on without it"
                            : "died: the survivors went on" + " without them")
                    + " (" + recoveredAs.lineage.get(recoveredAs.lineage.size() - 1) + ")");
        } else if (!missing.isEmpty()) {
            findings.add(ranks(missing) + " wrote no flight record: "
                    + (missing.size() == 1 ? "its process" : "their" + " processes")
                    + " ended without a failure, abort, close or exit that writes one (killed?),"
                    + " or ran without the directory set");
        }
        firstMismatch().ifPresent(findings::add);
        findings.addAll(neverEnqueued());
        return findings;
    }

    /** The first number at which the ranks that hold it called different calls or sizes. */
    private Optional<String> firstMismatch() {
        // from the first number every rank still holds: older ones left some rank's ring
        long from = byRank.values().stream()
                .filter(e -> !e.isEmpty())
                .mapToLong(e ->
                        e.keySet().stream().mapToLong(Long::longValue).min().orElseThrow())
                .max()
                .orElse(1);
        long to = lastSeqs().values().stream().mapToLong(Long::longValue).max().orElse(0);
        for (long seq = from; seq <= to; seq++) {
            Map<String, List<Integer>> ranksBySignature = new LinkedHashMap<>();
            for (Map.Entry<Integer, Map<Long, Entry>> rank : byRank.entrySet()) {
                Entry entry = rank.getValue().get(seq);
                if (entry != null) {
                    ranksBySignature
                            .computeIfAbsent(entry.signature(), s -> new ArrayList<>())
                            .add(rank.getKey());
                }
            }
            if (ranksBySignature.size() > 1) {
                return Optional.of("#" + seq + ": the ranks called different operations or sizes: "
                        + ranksBySignature.entrySet().stream()
                                .map(e -> ranks(e.getValue()) + " " + e.getKey())
                                .collect(Collectors.joining("; ")));
            }
        }
        return Optional.empty();
    }

    /**
     * Per rank that stopped short of the others, the first entry it never enqueued, as a rank that did enqueue it
     * recorded it; an entry no rank still holds is left out.
     */
    Map<Integer, Entry> neverReached() {
        Map<Integer, Long> last = lastSeqs();
        long newest = last.values().stream().mapToLong(Long::longValue).max().orElse(0);
        Map<Integer, Entry> reached = new TreeMap<>();
        last.forEach((rank, seq) -> {
            if (seq < newest) {
                byRank.values().stream()
                        .map(entries -> entries.get(seq + 1))
                        .filter(entry -> entry != null)
                        .findFirst()
                        .ifPresent(entry -> reached.put(rank, entry));
            }
        });
        return reached;
    }

    /** Each rank's record, by rank; a rank without a dump is missing. */
    Map<Integer, FlightRecord> records() {
        Map<Integer, FlightRecord> records = new TreeMap<>();
        dumps.forEach((rank, dump) -> records.put(rank, dump.record()));
        return records;
    }

    /** "rank 7 never enqueued #1042 allReduce(...); ranks 0-6 enqueued it and wait in it", per missing entry. */
    private List<String> neverEnqueued() {
        Map<Integer, Long> last = lastSeqs();
        Map<Long, List<Integer>> ranksByNext = new TreeMap<>();
        long newest = last.values().stream().mapToLong(Long::longValue).max().orElse(0);
        last.forEach((rank, seq) -> {
            if (seq < newest) {
                ranksByNext.computeIfAbsent(seq + 1, s -> new ArrayList<>()).add(rank);
            }
        });
        List<String> findings = new ArrayList<>();
        ranksByNext.forEach((seq, absent) -> {
            Map<String, List<Integer>> ranksByState = new LinkedHashMap<>();
            Entry example = null;
            for (Map.Entry<Integer, Map<Long, Entry>> rank : byRank.entrySet()) {
                Entry entry = rank.getValue().get(seq);
                if (entry != null) {
                    example = example == null ? entry : example;
                    ranksByState
                            .computeIfAbsent(standing(entry.state()), s -> new ArrayList<>())
                            .add(rank.getKey());
                }
            }
            String others = ranksByState.entrySet().stream()
                    .map(e -> ranks(e.getValue()) + " enqueued it and " + e.getKey())
                    .collect(Collectors.joining("; "));
            findings.add(ranks(absent) + " never enqueued " + (example == null ? "#" + seq : example) + "; " + others);
        });
        return findings;
    }

    /** Per rank, the oldest entry it holds that did not complete: where it is stuck, or failed. */
    List<String> stuck() {
        List<String> lines = new ArrayList<>();
        byRank.forEach((rank, entries) -> entries.values().stream()
                .filter(e -> e.state() != State.COMPLETED)
                .findFirst()
                .ifPresent(e -> lines.add("rank " + rank + " "
                        + (e.state() == State.ENQUEUED ? "waits" : e.state() == State.FAILED ? "failed" : "was aborted")
                        + " in " + e)));
        return lines;
    }

    /** A line per rank: entries kept and numbered, last enqueued and completed, and why it wrote its record. */
    List<String> table() {
        List<String> rows = new ArrayList<>();
        rows.add(String.format(
                Locale.ROOT,
                "%-5s | %-9s | %-26s | %-14s | %s",
                "rank",
                "entries",
                "last enqueued",
                "last completed",
                "written at"));
        for (int r = 0; r < size; r++) {
            Dump dump = dumps.get(r);
            if (dump == null) {
                rows.add(String.format(Locale.ROOT, "%-5d | %s", r, "(no record)"));
                continue;
            }
            FlightRecord record = dump.record();
            String lastEnqueued = record.lastEnqueued()
                    .map(e -> "#" + e.seq() + " " + e.call() + " (" + e.state().label() + ")")
                    .orElse("-");
            String lastCompleted = record.lastCompleted()
                    .map(e -> "#" + e.seq() + " " + e.call())
                    .orElse("-");
            rows.add(String.format(
                    Locale.ROOT,
                    "%-5d | %-9s | %-26s | %-14s | %s",
                    r,
                    record.entries().size() + "/" + record.recorded(),
                    lastEnqueued,
                    lastCompleted,
                    firstLine(dump.reason())));
        }
        return rows;
    }

    private Map<Integer, Long> lastSeqs() {
        Map<Integer, Long> last = new TreeMap<>();
        dumps.forEach((rank, dump) -> last.put(rank, dump.record().recorded()));
        return last;
    }

    private static String standing(State state) {
        return switch (state) {
            case ENQUEUED -> "wait in it";
            case COMPLETED -> "completed it";
            case FAILED -> "failed in it";
            case UNKNOWN -> "aborted in it";
        };
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        String line = end < 0 ? text : text.substring(0, end);
        return line.length() > 100 ? line.substring(0, 97) + "..." : line;
    }

    /** "rank 3", "ranks 0-6", "ranks 0, 2, 5-7". */
    static String ranks(List<Integer> ranks) {
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < ranks.size(); ) {
            int j = i;
            while (j + 1 < ranks.size() && ranks.get(j + 1) == ranks.get(j) + 1) {
                j++;
            }
            runs.add(j == i ? String.valueOf(ranks.get(i)) : ranks.get(i) + (j == i + 1 ? ", " : "-") + ranks.get(j));
            i = j + 1;
        }
        return (ranks.size() == 1 ? "rank " : "ranks ") + String.join(", ", runs);
    }
}
