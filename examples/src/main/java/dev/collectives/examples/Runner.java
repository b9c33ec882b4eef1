package dev.collectives.examples;

import dev.collectives.examples.Example.RankReport;
import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.examples.mistakes.Mistakes;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Runs the examples (the README's first command): each on a fresh cluster of {@code --ranks} ranks, printing its
 * {@code describe()} table, its check and its time; or, with {@code --mistakes}, the mistakes, each of which must
 * fail with its rule; or, with {@code join}, this process's rank of a multi-process job. {@link Commands} is its
 * command line; {@link #run} runs one, so that tests call it in-process.
 */
public final class Runner {
    /** Exit status: every example (or mistake) passed or was skipped. */
    public static final int PASSED = 0;
    /** Exit status: one failed. */
    public static final int FAILED = 1;
    /** Exit status: a bad command line or an unavailable backend. */
    public static final int USAGE = 2;
    /** Exit status of {@code join}: this process could not join the job. */
    public static final int NOT_JOINED = 3;
    /** What a rank of a multi-process job says first, once its settings are read: that it is starting. */
    public static final String JOINING = "joining on ";

    private final Backend backend;
    private final Ranks ranks;
    private final PrintStream out;

    private Runner(Backend backend, Ranks ranks, PrintStream out) {
        this.backend = backend;
        this.ranks = ranks;
        this.out = out;
    }

    /**
     * The command line: {@code --help} lists the options and subcommands.
     *
     * @param args the options and the subcommand
     */
    public static void main(String[] args) {
        OneLineLogs.configure();
        int status = run(args, System.out);
        System.out.flush();
        if (status != PASSED) {
            System.exit(status);
        }
    }

    /**
     * Runs the command line {@code args}, printing to {@code out}.
     *
     * @param args the options and the subcommand
     * @param out  where the output goes, the errors too
     * @return the exit status: {@link #PASSED}, {@link #FAILED} or {@link #USAGE}
     */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, Examples.all(), Mistakes.all());
    }

    /** {@link #run(String[], PrintStream)} choosing among these examples and mistakes. */
    static int run(String[] args, PrintStream out, List<Example> examples, List<Mistake> mistakes) {
        int status = Commands.commandLine(out, examples, mistakes).execute(args);
        out.flush();
        return status;
    }

    static int runExamples(Commands.Catalogue catalogue, ClusterOptions cluster, List<String> names) {
        List<Example> selected = select("example", catalogue.examples(), Example::name, names);
        return runner(catalogue, cluster).runExamples(selected);
    }

    static int runMistakes(Commands.Catalogue catalogue, ClusterOptions cluster, List<String> names) {
        List<Mistake> selected = select("mistake", catalogue.mistakes(), Mistake::name, names);
        return runner(catalogue, cluster).runMistakes(selected);
    }

    /**
     * Joins this process's rank of a multi-process job (its place, the rendezvous and the backend from the
     * environment) and runs the named examples, or mistakes, on it, printing this rank's reports and verdicts.
     */
    static int runJoined(Commands.Catalogue catalogue, boolean mistakes, List<String> names) {
        List<Example> examples = mistakes ? List.of() : select("example", catalogue.examples(), Example::name, names);
        List<Mistake> chosen = mistakes ? select("mistake", catalogue.mistakes(), Mistake::name, names) : List.of();
        return onJoinedRank(catalogue.out(), (backend, rank) -> {
            Runner runner = new Runner(backend, Ranks.joined(rank), catalogue.out());
            return mistakes ? runner.runMistakes(chosen) : runner.runExamples(examples);
        });
    }

    /** Joins this process's rank of a multi-process job and runs {@code examples} on it, as {@code join} does. */
    static int runJoined(PrintStream out, List<Example> examples) {
        return onJoinedRank(out, (backend, rank) -> new Runner(backend, Ranks.joined(rank), out).runExamples(examples));
    }

    /**
     * Joins this process's rank of a multi-process job, its place, the rendezvous and the backend taken from the
     * environment, saying what it joins and, once joined, the library's version; runs {@code body} on the rank and
     * closes it. Returns what {@code body} returns, or, having said why, {@link #USAGE} for bad settings and
     * {@link #NOT_JOINED} when the job did not form.
     */
    public static int onJoinedRank(PrintStream out, BiFunction<Backend, JoinedRank, Integer> body) {
        Backend backend;
        Bootstrap bootstrap;
        try {
            backend = Backends.fromEnvironment();
            bootstrap = Bootstrap.fromEnvironment();
        } catch (CollectivesException e) {
            out.println("error: " + e.getMessage());
            return USAGE;
        }
        out.println(JOINING + backend.name() + ": " + bootstrap.describe());
        out.flush();
        JoinedRank rank;
        try {
            rank = backend.join(bootstrap);
        } catch (CollectivesException e) {
            out.println("FAILED to join: " + e.getMessage());
            return NOT_JOINED;
        }
        out.println("joined: rank " + rank.rank() + " of " + rank.size() + " on " + backend.name() + " "
                + rank.comm().capabilities().libraryVersion()
                + rank.comm()
                        .crossRankChecksOff()
                        .map(why -> "; checks across ranks are off: " + why)
                        .orElse(""));
        out.flush();
        try (rank) {
            return body.apply(backend, rank);
        }
    }

    /** A runner on the chosen backend; a bad command line when the backend is unknown or unavailable. */
    private static Runner runner(Commands.Catalogue catalogue, ClusterOptions cluster) {
        Backend backend = cluster.backend().get();
        return new Runner(backend, Ranks.local(backend, cluster.ranks().count()), catalogue.out());
    }

    static int list(Commands.Catalogue catalogue) {
        PrintStream out = catalogue.out();
        out.println("examples (run them all with 'examples', or some with 'examples NAME...'):");
        for (Example e : catalogue.examples()) {
            out.printf(
                    "  %-24s %s%s%n",
                    e.name(), e.summary(), e.minRanks() > 1 ? " [needs at least " + e.minRanks() + " ranks]" : "");
        }
        out.println("mistakes (run them all with 'mistakes', or some with 'mistakes NAME...'):");
        for (Mistake m : catalogue.mistakes()) {
            out.printf(
                    "  %-24s %s, caught as %s%n",
                    m.name(), m.summary(), m.rule().tag());
        }
        return PASSED;
    }

    /** The entries named in {@code names}, in the order given; all of them when none are named. */
    private static <T> List<T> select(String kind, List<T> all, Function<T, String> nameOf, List<String> names) {
        if (names.isEmpty()) {
            return all;
        }
        Map<String, T> byName = new LinkedHashMap<>();
        all.forEach(t -> byName.put(nameOf.apply(t), t));
        List<T> selected = new ArrayList<>();
        for (String name : names) {
            T t = byName.get(name.toLowerCase(Locale.ROOT));
            if (t == null) {
                throw new IllegalArgumentException("no " + kind + " is called '" + name + "'; the " + kind + "s are: "
                        + String.join(", ", byName.keySet()) + " (see --list)");
            }
            selected.add(t);
        }
        return selected;
    }

    // ---- examples ---------------------------------------------------------------------------------------

    int runExamples(List<Example> examples) {
        out.println("Collectives examples on " + backend.name() + ", " + ranks.describe());
        Tally tally = new Tally();
        for (Example example : examples) {
            out.println();
            out.println("== " + example.name() + ": " + example.summary());
            tally.add(runExample(example));
        }
        out.println();
        out.println("examples: " + tally);
        return tally.failed > 0 ? FAILED : PASSED;
    }

    private Verdict runExample(Example example) {
        Optional<String> outOfRange = rankRange(ranks.size(), example.minRanks(), example.maxRanks());
        if (outOfRange.isPresent()) {
            out.println("SKIPPED: " + outOfRange.get());
            return Verdict.SKIPPED;
        }
        AtomicReferenceArray<RankReport> reports = new AtomicReferenceArray<>(ranks.size());
        AtomicReferenceArray<String> unmet = new AtomicReferenceArray<>(ranks.size());
        long start = System.nanoTime();
        try {
            ranks.run(example.cluster(), Clusters.EXAMPLE_TIMEOUT, rank -> {
                Optional<String> missing = example.inapplicable(rank.comm());
                if (missing.isPresent()) {
                    unmet.set(rank.rank(), missing.get());
                } else {
                    reports.set(rank.rank(), example.run(rank));
                }
            });
        } catch (RuntimeException e) {
            out.println("FAILED: " + failure(e));
            printTime(start);
            return Verdict.FAILED;
        }
        int[] held = ranks.held();
        if (unmet.get(held[0]) != null) {
            out.println("SKIPPED: " + backend.name() + " " + unmet.get(held[0]));
            return Verdict.SKIPPED;
        }
        out.println(indent(reports.get(held[0]).describe()));
        Check firstWrong = null;
        for (int i = 0; i < held.length && firstWrong == null; i++) {
            int r = held[i];
            Check check = reports.get(r) == null
                    ? Check.wrong(r, "a report", "one", "none")
                    : reports.get(r).check();
            firstWrong = check.isOk() ? null : check;
        }
        if (firstWrong != null) {
            out.println("check: WRONG: " + firstWrong.text());
        } else {
            RankReport report = reports.get(held[0]);
            String started = "rank " + held[0] + " of " + ranks.size();
            out.println("check: OK on "
                    + (held.length == ranks.size()
                            ? "all " + held.length + " rank(s): rank " + held[0]
                            : started
                                    + report.checkedOn()
                                            .filter(on -> !on.equals(started))
                                            .map(on -> ", now " + on)
                                            .orElse("")
                                    + ":")
                    + " compared "
                    + report.check().text());
        }
        printTime(start);
        return firstWrong == null ? Verdict.PASSED : Verdict.FAILED;
    }

    // ---- mistakes ---------------------------------------------------------------------------------------

    int runMistakes(List<Mistake> mistakes) {
        out.println("Collectives mistakes on " + backend.name() + ", " + ranks.describe() + ": each must fail fast "
                + "with its rule");
        Tally tally = new Tally();
        for (Mistake mistake : mistakes) {
            out.println();
            out.println("== mistake " + mistake.name() + ": " + mistake.summary());
            out.println("expects: " + mistake.rule().tag());
            tally.add(runMistake(mistake));
        }
        out.println();
        out.println("mistakes: " + tally);
        return tally.failed > 0 ? FAILED : PASSED;
    }

    private Verdict runMistake(Mistake mistake) {
        Optional<String> outOfRange = rankRange(ranks.size(), mistake.minRanks(), Integer.MAX_VALUE);
        if (outOfRange.isPresent()) {
            out.println("SKIPPED: " + outOfRange.get());
            return Verdict.SKIPPED;
        }
        AtomicReferenceArray<String> inapplicable = new AtomicReferenceArray<>(ranks.size());
        AtomicInteger reporting = new AtomicInteger();
        long start = System.nanoTime();
        try {
            ranks.run(mistake.cluster(), Clusters.MISTAKE_TIMEOUT, rank -> {
                Optional<String> why = mistake.inapplicable(rank.comm());
                if (why.isPresent()) {
                    inapplicable.set(rank.rank(), why.get());
                    return;
                }
                try {
                    mistake.run(rank);
                } catch (CollectivesException e) {
                    if (e.rule() == mistake.rule()) {
                        reporting.incrementAndGet();
                    }
                    throw e;
                }
            });
        } catch (RuntimeException e) {
            boolean caught = e instanceof CollectivesException && ((CollectivesException) e).rule() == mistake.rule();
            if (!caught) {
                out.println("FAILED: expected " + mistake.rule().tag() + " but got: " + failure(e));
            } else {
                out.println("caught: " + failure(e));
                if (ranks.held().length == ranks.size()) {
                    out.println("ranks that reported " + mistake.rule().tag() + ": " + reporting.get() + " of "
                            + ranks.size());
                }
            }
            printTime(start);
            return caught ? Verdict.PASSED : Verdict.FAILED;
        }
        int first = ranks.held()[0];
        if (inapplicable.get(first) != null) {
            out.println("SKIPPED: " + backend.name() + " " + inapplicable.get(first));
            return Verdict.SKIPPED;
        }
        out.println("FAILED: not caught: every rank bound and ran the mistake without an error");
        printTime(start);
        return Verdict.FAILED;
    }

    // ---- printing ---------------------------------------------------------------------------------------

    /** Why {@code size} ranks are too few (below {@code min}) or too many (above {@code max}); empty if neither. */
    public static Optional<String> rankRange(int size, int min, int max) {
        if (size < min) {
            return Optional.of("needs at least " + min + " ranks (running " + size + ")");
        }
        if (size > max) {
            return Optional.of("sized for at most " + max + " ranks (running " + size + ")");
        }
        return Optional.empty();
    }

    /**
     * A failure's own message (a failure of ranks has a line per reason); for one rank's failure, the rank and what it
     * threw, without wrapper class names.
     */
    public static String failure(Throwable e) {
        if (e instanceof CollectivesException wrapper
                && wrapper.rank() >= 0
                && e.getCause() != null
                && e.getMessage().startsWith("rank " + wrapper.rank() + " failed: ")) {
            Throwable cause = e.getCause();
            String inner = cause instanceof CollectivesException ? cause.getMessage() : cause.toString();
            return "rank " + wrapper.rank() + " failed: " + inner;
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private void printTime(long startNanos) {
        out.printf(Locale.ROOT, "time: %.1f ms%n", (System.nanoTime() - startNanos) / 1e6);
    }

    private static String indent(String text) {
        return "  " + text.strip().replace("\n", "\n  ");
    }

    private enum Verdict {
        PASSED,
        SKIPPED,
        FAILED
    }

    /** Counts of verdicts, printed as the last line. */
    private static final class Tally {
        private int passed;
        private int skipped;
        private int failed;

        void add(Verdict verdict) {
            switch (verdict) {
                case PASSED:
                    passed++;
                    break;
                case SKIPPED:
                    skipped++;
                    break;
                default:
                    failed++;
            }
        }

        @Override
        public String toString() {
            return passed + " passed, " + skipped + " skipped, " + failed + " failed";
        }
    }
}
