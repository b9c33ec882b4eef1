package dev.collectives.examples.differential;

import java.nio.file.Path;
import java.util.List;

/**
 * The random corpus: the first {@code size} pipelines of {@code seed}, no op counting more than {@code maxCount}
 * elements; compiled once into {@code corpus/} under the results directory, where every process loads it from.
 */
record Corpus(long seed, int size, long maxCount) {
    /** The largest op count the corpus draws by default: 2^20. */
    static final long MAX_COUNT = 1 << 20;

    List<PipelineSpec> specs() {
        return CorpusGenerator.corpus(seed, size, maxCount);
    }

    void compile(Path results) {
        CorpusCompiler.compile(specs(), directory(results));
    }

    List<Item> items(Path results) {
        ClassLoader loader = CorpusCompiler.load(directory(results));
        return specs().stream().<Item>map(spec -> new CorpusItem(spec, loader, seed)).toList();
    }

    private static Path directory(Path results) {
        return results.resolve("corpus");
    }
}
