package dev.collectives.tools.differential;

import dev.collectives.examples.Example;
import dev.collectives.examples.Runner;
import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.tools.differential.Comparison.Verdict;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One rank process of a {@code differential} job, started by the harness: joins the job (its place and backend from
 * the environment), runs the job's items in order, compares each outcome with sim's and appends the verdict to its
 * file, so that what it did before a crash is kept.
 */
@Command(
        name = RankCommand.NAME,
        hidden = true,
        description = "One rank of a differential job (started by " + "'differential').")
public final class RankCommand implements Callable<Integer> {
    static final String NAME = "differential-rank";

    private final PrintStream out;
    private final List<Example> examples;
    private final List<Mistake> mistakes;

    @Option(names = "--job", required = true, paramLabel = "JOB", description = "data or rules")
    Part.Job job;

    @Mixin
    WorkOptions work;

    public RankCommand(PrintStream out, List<Example> examples, List<Mistake> mistakes) {
        this.out = out;
        this.examples = examples;
        this.mistakes = mistakes;
    }

    @Override
    public Integer call() {
        List<Item> items = work.work(examples, mistakes).items().stream()
                .filter(i -> i.part().job() == job)
                .toList();
        return Runner.onJoinedRank(out, (backend, rank) -> {
            ResultStore store = new ResultStore(work.results, rank.size());
            Path verdicts = store.verdicts(job, rank.rank());
            boolean sim = Comparison.REFERENCE.equals(backend.name());
            for (Item item : items) {
                Outcome outcome =
                        item.outOfRange(rank.size()).map(Outcome::skipped).orElseGet(() -> run(item, rank));
                Verdict verdict = Comparison.compare(
                        item.key(),
                        rank.rank(),
                        store.readReference(item, rank.rank()),
                        outcome,
                        Comparison.Sides.against(backend.name()),
                        sim ? Tolerance.EXACT : item.tolerance(rank.size()));
                store.append(verdicts, verdict);
                out.println(
                        item.key() + ": " + verdict.result().name().toLowerCase(Locale.ROOT) + ": " + verdict.detail());
                out.flush();
            }
            return Runner.PASSED;
        });
    }

    private static Outcome run(Item item, JoinedRank rank) {
        try {
            return item.run(rank);
        } catch (Exception e) {
            return Outcome.failed(e);
        }
    }
}
