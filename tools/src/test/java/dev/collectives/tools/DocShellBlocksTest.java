package dev.collectives.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.testing.DocPages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shell block of the README and of the pages under {@code docs/} that is marked to run (the line
 * {@code <!-- run -->} right above a {@code sh} or {@code bash} block) works as printed: each runs with {@code bash -e} in a copy of
 * the repository's files (without what a build wrote), with {@code ./collectives} running from the class path the
 * reactor built for these tests, and must exit with 0. A block that names a program of the repository which the
 * copy lacks is skipped, saying which. Each block's page and line, and whether it ran, are printed.
 */
class DocShellBlocksTest {
    private static final Path ROOT = DocPages.ROOT;
    private static final String MARK = "<!-- run -->";

    private static final Pattern MARKED = Pattern.compile(MARK + "\n```(?:sh|bash)\n(.*?)```", Pattern.DOTALL);
    /** A program of the repository, named by its path from the root: {@code ./collectives}, {@code ./gpu/x.sh}. */
    private static final Pattern OWN_PROGRAM = Pattern.compile("(?<![\\w/.])\\./[\\w./-]+");
    /** What a build or a checkout writes beside the sources, which a fresh clone does not have. */
    private static final Set<String> NOT_COPIED = Set.of("target", ".git", ".gpu", ".idea");
    /** Far above what a marked block may take (CONTRIBUTING.md asks for a minute on two cores). */
    private static final long BLOCK_TIMEOUT_MINUTES = 5;

    record Block(Path page, int line, String commands) {
        String where() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    @TestFactory
    Stream<DynamicTest> everyShellBlockMarkedToRunWorksAsPrinted(@TempDir Path dir) throws IOException {
        Path copy = dir.resolve("repository");
        copyWithoutBuildOutput(ROOT, copy);
        return marked().stream().map(block -> DynamicTest.dynamicTest(block.where(), () -> run(block, copy, dir)));
    }

    @Test
    void someBlocksAreMarkedToRunAndNoneStartsALauncher() throws IOException {
        List<Block> blocks = marked();
        assertTrue(blocks.size() >= 2, "blocks marked to run: " + blocks);
        List<String> marks = DocPages.find(Pattern.compile(Pattern.quote(MARK))).stream()
                .map(DocPages.Found::where)
                .toList();
        assertEquals(marks.size(), blocks.size(), "a mark not right above a shell block, among " + marks);
        for (Block block : blocks) {
            assertTrue(
                    !block.commands().contains("mpirun") && !block.commands().contains("srun"),
                    block.where() + " starts a launcher, which CI has not");
        }
    }

    private static void run(Block block, Path copy, Path dir) throws IOException, InterruptedException {
        Matcher program = OWN_PROGRAM.matcher(block.commands());
        while (program.find()) {
            if (!Files.exists(copy.resolve(program.group()))) {
                String why = block.where() + " skipped: it runs " + program.group() + ", which this tree lacks";
                System.out.println(why);
                Assumptions.abort(why);
            }
        }
        Path script = dir.resolve("block-" + block.line() + ".sh");
        Path log = dir.resolve("block-" + block.line() + ".log");
        Files.writeString(script, block.commands(), StandardCharsets.UTF_8);
        ProcessBuilder builder = new ProcessBuilder("bash", "-e", "-o", "pipefail", script.toString())
                .directory(copy.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("COLLECTIVES_CLASS_PATH", System.getProperty("java.class.path"));
        Process bash = builder.start();
        boolean ended = bash.waitFor(BLOCK_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        // what the block left running in the background ends with it
        bash.descendants().forEach(ProcessHandle::destroyForcibly);
        bash.destroyForcibly();
        String printed = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(
                ended,
                block.where() + " still ran after " + BLOCK_TIMEOUT_MINUTES + " minutes; it printed:\n" + printed);
        assertEquals(
                0, bash.exitValue(), () -> block.where() + " failed:\n" + block.commands() + "it printed:\n" + printed);
        System.out.println(block.where() + " ran: " + block.commands().lines().count() + " lines, exit status 0");
    }

    /** The blocks marked to run, of README.md and docs/*.md, in page order. */
    private static List<Block> marked() throws IOException {
        return DocPages.find(MARKED).stream()
                .map(f -> new Block(f.page(), f.line(), f.match().group(1)))
                .toList();
    }

    /** The repository's files, as a fresh clone has them: no build output, the scripts still executable. */
    private static void copyWithoutBuildOutput(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes)
                    throws IOException {
                if (!directory.equals(from)
                        && NOT_COPIED.contains(directory.getFileName().toString())) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(directory).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
