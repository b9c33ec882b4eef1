package dev.collectives.tools.differential;

import dev.collectives.examples.Example;
import dev.collectives.examples.mistakes.Mistake;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;

/** The options that choose the work: the harness passes them on to every rank process. */
final class WorkOptions {
    @Option(
            names = "--parts",
            paramLabel = "PART",
            split = ",",
            description = "what to compare: examples, mistakes, corpus, wrap (framework memory); default: all")
    Set<Part> parts = EnumSet.allOf(Part.class);

    @Option(names = "--corpus", paramLabel = "K", description = "random pipelines in the corpus; default: 300")
    int corpus = 300;

    @Option(names = "--seed", paramLabel = "S", description = "the corpus's seed; default: 1")
    long seed = 1;

    @Option(
            names = "--max-count",
            paramLabel = "C",
            description = "the largest op count the corpus draws; " + "default: 1048576")
    long maxCount = Corpus.MAX_COUNT;

    @Option(
            names = "--corpus-jar",
            paramLabel = "FILE",
            description = "a corpus compiled beforehand with "
                    + "--prepare-corpus, used instead of compiling one: for a Java runtime without the compiler")
    Path corpusJar;

    @Option(
            names = "--results",
            paramLabel = "DIR",
            description = "where the compiled corpus, sim's outcomes, the "
                    + "verdicts and the logs go; default: differential-results")
    Path results = Path.of("differential-results");

    Work work(List<Example> examples, List<Mistake> mistakes) {
        if (corpus < 0 || maxCount < 1) {
            throw new IllegalArgumentException("--corpus must be at least 0 and --max-count at least 1");
        }
        return new Work(
                parts,
                examples,
                mistakes,
                new Corpus(
                        seed,
                        corpus,
                        maxCount,
                        corpusJar != null
                                ? corpusJar.toAbsolutePath()
                                : results.toAbsolutePath().resolve("corpus")),
                corpusJar != null,
                results);
    }

    /** These options as a rank process is given them. */
    List<String> arguments() {
        List<String> args = new ArrayList<>(List.of(
                "--parts",
                String.join(",", parts.stream().map(Part::label).toList()),
                "--corpus",
                String.valueOf(corpus),
                "--seed",
                String.valueOf(seed),
                "--max-count",
                String.valueOf(maxCount),
                "--results",
                results.toAbsolutePath().toString()));
        if (corpusJar != null) {
            args.addAll(List.of("--corpus-jar", corpusJar.toAbsolutePath().toString()));
        }
        return args;
    }
}
