package dev.collectives.tools.differential;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.collectives.tools.differential.Comparison.Verdict;
import dev.collectives.tools.differential.Output.Segment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The files of one rank count under the results directory ({@code n4/}): sim's outcome of every item on every rank
 * ({@code reference/<item>/rank-R.json}, with what it read back beside it as {@code rank-R-K.bin}), each process's
 * verdicts as JSON lines ({@code verdicts/<job>-rank-R.jsonl}) and its log ({@code logs/<job>-rank-R.log}).
 */
final class ResultStore {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path root;

    ResultStore(Path results, int ranks) {
        this.root = results.resolve("n" + ranks);
    }

    /** Removes what an earlier run left for this rank count. */
    void reset() {
        deleteTree(root);
    }

    /** An outcome as stored: its outputs by file. */
    private record StoredOutcome(Outcome.Kind kind, String tag, String detail, List<StoredOutput> outputs) {}

    private record StoredOutput(String name, List<Segment> segments, String sha256, String file) {}

    void writeReference(Item item, int rank, Outcome outcome) {
        Path dir = referenceDir(item);
        List<StoredOutput> outputs = new ArrayList<>();
        try {
            Files.createDirectories(dir);
            for (int k = 0; k < outcome.outputs().size(); k++) {
                Output o = outcome.outputs().get(k);
                String file = "rank-" + rank + "-" + k + ".bin";
                Files.write(dir.resolve(file), o.bytes());
                outputs.add(new StoredOutput(o.name(), o.segments(), o.sha256(), file));
            }
            JSON.writeValue(
                    dir.resolve("rank-" + rank + ".json").toFile(),
                    new StoredOutcome(outcome.kind(), outcome.tag(), outcome.detail(), outputs));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write sim's outcome of " + item.key() + " under " + dir, e);
        }
    }

    Outcome readReference(Item item, int rank) {
        Path dir = referenceDir(item);
        try {
            StoredOutcome stored =
                    JSON.readValue(dir.resolve("rank-" + rank + ".json").toFile(), StoredOutcome.class);
            List<Output> outputs = new ArrayList<>();
            for (StoredOutput o : stored.outputs()) {
                outputs.add(new Output(o.name(), o.segments(), Files.readAllBytes(dir.resolve(o.file()))));
            }
            return new Outcome(stored.kind(), stored.tag(), stored.detail(), outputs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read sim's outcome of " + item.key() + " under " + dir, e);
        }
    }

    /** Deletes what sim read back, keeping its outcomes' verdicts and digests. */
    void deleteReferenceData() {
        try (Stream<Path> files = Files.walk(root.resolve("reference"))) {
            for (Path bin : files.filter(p -> p.toString().endsWith(".bin")).toList()) {
                Files.delete(bin);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path verdicts(Part.Job job, int rank) {
        return root.resolve("verdicts").resolve(job.label() + "-rank-" + rank + ".jsonl");
    }

    Path log(Part.Job job, int rank) {
        return root.resolve("logs").resolve(job.label() + "-rank-" + rank + ".log");
    }

    void append(Path file, Verdict verdict) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(
                    file,
                    JSON.writeValueAsString(verdict) + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** The verdicts in {@code file}; none if it was never written. */
    List<Verdict> readVerdicts(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            List<Verdict> verdicts = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                verdicts.add(JSON.readValue(line, Verdict.class));
            }
            return verdicts;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private Path referenceDir(Item item) {
        return root.resolve("reference")
                .resolve(item.key().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.]+", "-"));
    }

    static void deleteTree(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path p :
                    paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + directory, e);
        }
    }
}
