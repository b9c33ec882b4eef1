package dev.collectives.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The pages of the documentation, README.md then docs/*.md, read by the tests that check their blocks. */
public final class DocPages {
    /** The repository's root, from the folder of any module, where its tests run. */
    public static final Path ROOT = Path.of("..");

    private DocPages() {}

    /**
     * What a pattern found on a page: the page, the line on which its last group starts (the block's first line), and
     * the match with its groups.
     */
    public record Found(Path page, int line, MatchResult match) {
        /** "docs/guide.md:42". */
        public String where() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    /** Every place where {@code pattern} matches, page by page, in order. */
    public static List<Found> find(Pattern pattern) throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<Found> found = new ArrayList<>();
        for (Path page : pages) {
            String text = Files.readString(page);
            Matcher match = pattern.matcher(text);
            while (match.find()) {
                int start = match.start(match.groupCount());
                found.add(new Found(page, (int) text.substring(0, start).lines().count() + 1, match.toMatchResult()));
            }
        }
        return found;
    }
}
