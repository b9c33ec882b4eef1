package dev.collectives.tools.differential;

import dev.collectives.examples.ClusterOptions;
import dev.collectives.examples.Example;
import dev.collectives.examples.Runner;
import dev.collectives.examples.mistakes.Mistake;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The tools' {@code differential} command: see {@link Harness}. */
@Command(
        name = "differential",
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Runs the same work on sim (threads of this process) and on another backend (one process per "
                    + "rank) at each rank count, and compares: every example's buffers, every mistake's tag, a seeded "
                    + "random corpus of pipelines (generated, compiled with the annotation processor, run with "
                    + "rank-dependent inputs), and memory a framework owns wrapped in each registration mode. Prints "
                    + "each difference with a reproducer, and per rank count a table and a summary line.",
            "With more ranks than GPUs, the processes share the GPUs round-robin, each with its own NCCL_HOSTID (a "
                    + "setup for testing behaviour only). With --backend sim, sim in threads is compared with sim in "
                    + "processes."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:everything compared agreed",
            "1:something differed, or a process failed",
            "2:a bad command line"
        })
public final class DifferentialCommand implements Callable<Integer> {
    private final PrintStream out;
    private final List<Example> examples;
    private final List<Mistake> mistakes;

    /** The backend compared with sim, and the rank counts. */
    @Mixin
    ClusterOptions cluster = new ClusterOptions(Comparison.REFERENCE, "2,4,8");

    @Option(
            names = "--devices",
            paramLabel = "G",
            description = "the GPUs the processes share, round-robin; " + "default: 1")
    int devices = 1;

    @Option(
            names = "--job-timeout",
            paramLabel = "SECONDS",
            description = "how long a job of processes may run; " + "default: 1800")
    long jobTimeout = 1800;

    @Option(names = "--keep-data", description = "keep what sim read back, beside its outcomes")
    boolean keepData;

    @Option(
            names = "--prepare-corpus",
            paramLabel = "FILE",
            description = "generate the corpus (--corpus, --seed, "
                    + "--max-count), compile it with the annotation processor into this jar, and exit: for a run where the "
                    + "Java runtime has no compiler (--corpus-jar)")
    Path prepareCorpus;

    @Mixin
    WorkOptions work;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "show this help, and exit")
    boolean help;

    public DifferentialCommand(PrintStream out, List<Example> examples, List<Mistake> mistakes) {
        this.out = out;
        this.examples = examples;
        this.mistakes = mistakes;
    }

    @Override
    public Integer call() {
        if (prepareCorpus != null) {
            Corpus corpus = new Corpus(work.seed, work.corpus, work.maxCount, prepareCorpus);
            corpus.compile();
            out.println("corpus: " + work.corpus + " pipelines of seed " + work.seed + " (op counts up to "
                    + work.maxCount + ") compiled into " + prepareCorpus);
            return Runner.PASSED;
        }
        List<Integer> counts = cluster.ranks().counts();
        if (counts.stream().anyMatch(n -> n < 2) || devices < 1) {
            throw new IllegalArgumentException("--ranks needs counts of at least 2 and --devices at least 1");
        }
        Harness.Settings settings = new Harness.Settings(
                cluster.backend().name(), counts, devices, Duration.ofSeconds(jobTimeout), keepData);
        return new Harness(settings, work.work(examples, mistakes), work.arguments(), out).run();
    }
}
