package dev.collectives.tools.differential;

import dev.collectives.tools.differential.Comparison.Result;
import dev.collectives.tools.differential.Comparison.Verdict;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The verdicts of every process at one rank count, item by item: an item agrees when it agrees on every rank, and
 * is skipped (not compared) when the other backend skipped it. Prints what differs with its reproducer, what was
 * skipped and why, what agreed only within the bound, a table per part and the summary line.
 */
final class Report {
    private final int ranks;
    private final Map<Part, Tally> tallies = new EnumMap<>(Part.class);
    private final List<String> details = new ArrayList<>();

    /** Counts of one part. */
    private static final class Tally {
        int agree;
        int bitExact;
        int differ;
        int skipped;

        int compared() {
            return agree + differ;
        }
    }

    private Report(int ranks) {
        this.ranks = ranks;
        for (Part part : Part.values()) {
            tallies.put(part, new Tally());
        }
    }

    /**
     * Reads every process's verdicts; {@code ended} says, per job, how each rank's process ended, for items that
     * a rank gave no verdict on.
     */
    static Report collect(int ranks, List<Item> items, ResultStore store, Map<Part.Job, String[]> ended) {
        Map<String, Verdict[]> byItem = new HashMap<>();
        for (Part.Job job : Part.Job.values()) {
            for (int r = 0; r < ranks; r++) {
                for (Verdict v : store.readVerdicts(store.verdicts(job, r))) {
                    byItem.computeIfAbsent(v.item(), k -> new Verdict[ranks])[v.rank()] = v;
                }
            }
        }
        Report report = new Report(ranks);
        Map<String, List<String>> unanswered = new LinkedHashMap<>();
        for (Item item : items) {
            Verdict[] verdicts = byItem.getOrDefault(item.key(), new Verdict[ranks]);
            for (int r = 0; r < ranks; r++) {
                if (verdicts[r] == null) {
                    String process = "the process of rank " + r + " "
                            + ended.get(item.part().job())[r] + " (see "
                            + store.log(item.part().job(), r) + ")";
                    unanswered.computeIfAbsent(process, k -> new ArrayList<>()).add(item.key());
                    verdicts[r] = new Verdict(item.key(), r, Result.DIFFER, false, "no verdict: " + process);
                }
            }
            report.add(item, verdicts);
        }
        unanswered.forEach((process, keys) -> report.details.add(
                "DIFFERS: no verdict on " + keys.size() + " item(s), from " + keys.get(0) + " on: " + process));
        return report;
    }

    private void add(Item item, Verdict[] verdicts) {
        Tally tally = tallies.get(item.part());
        List<Verdict> differing = List.of(verdicts).stream()
                .filter(v -> v.result() == Result.DIFFER)
                .toList();
        if (differing.stream().anyMatch(v -> v.detail().startsWith("no verdict: "))) {
            tally.differ++;
        } else if (!differing.isEmpty()) {
            tally.differ++;
            details.add("DIFFERS: " + item.key() + " on rank(s) "
                    + differing.stream().map(v -> String.valueOf(v.rank())).collect(Collectors.joining(", ")) + ": "
                    + differing.get(0).detail()
                    + (item.reproducer().isEmpty()
                            ? ""
                            : "\n  reproducer:\n    "
                                    + item.reproducer().strip().replace("\n", "\n    ")));
        } else if (List.of(verdicts).stream().anyMatch(v -> v.result() == Result.SKIPPED)) {
            tally.skipped++;
            details.add("skipped (not compared): " + item.key() + ": "
                    + List.of(verdicts).stream()
                            .filter(v -> v.result() == Result.SKIPPED)
                            .findFirst()
                            .orElseThrow()
                            .detail());
        } else {
            tally.agree++;
            if (List.of(verdicts).stream().allMatch(Verdict::bitExact)) {
                tally.bitExact++;
            } else {
                details.add("agrees within the bound: " + item.key() + ": "
                        + List.of(verdicts).stream()
                                .filter(v -> !v.bitExact())
                                .findFirst()
                                .orElseThrow()
                                .detail());
            }
        }
    }

    boolean allAgree() {
        return tallies.values().stream().allMatch(t -> t.differ == 0);
    }

    /** "differential: 4 ranks: examples 12/12, mistakes 3/3, corpus 300/300, wrap 18/18 agree". */
    String summary() {
        return "differential: " + ranks + " ranks: "
                + List.of(Part.values()).stream()
                        .map(p -> p.label() + " " + tallies.get(p).agree + "/"
                                + tallies.get(p).compared())
                        .collect(Collectors.joining(", "))
                + " agree";
    }

    /** One row per part: compared, agreed (bit-exact, within the bound), differ, skipped. */
    List<String> table() {
        List<String> rows = new ArrayList<>(List.of(
                "| part | compared | agree | identical | within the bound | " + "differ | skipped (not compared) |",
                "|---|---:|---:|---:|---:|---:|---:|"));
        for (Part p : Part.values()) {
            Tally t = tallies.get(p);
            rows.add("| " + p.label() + " | " + t.compared() + " | " + t.agree + " | " + t.bitExact + " | "
                    + (t.agree - t.bitExact) + " | " + t.differ + " | " + t.skipped + " |");
        }
        return rows;
    }

    void print(PrintStream out) {
        details.forEach(out::println);
        table().forEach(out::println);
        out.println(summary());
    }
}
