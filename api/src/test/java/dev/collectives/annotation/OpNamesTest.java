package dev.collectives.annotation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The catalogue is the one place an op's name is spelled: no string literal in the main code of any module is an
 * op's name ({@link OpKind#method()}, {@link OpKind#cName()}, with or without the {@code nccl}/{@code mccl}
 * prefix), in any case, nor a comma-separated list of them. "send" and "recv" are exempt: they also name the two
 * sides of every op.
 */
class OpNamesTest {
    private static final Pattern STRING_LITERAL = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"");
    /** The modules whose main code is scanned, from the api module's directory. */
    private static final List<String> MODULES = List.of("api", "processor", "runtime", "tools", "examples", "spark");
    /**
     * The control plane's own operations over TCP are named "broadcast" and "allgather"; they are not calls of a
     * library, and the control plane knows nothing of the catalogue.
     */
    private static final Path CONTROL_PLANE = Path.of("runtime/src/main/java/dev/collectives/runtime/bootstrap");

    @Test
    void noOpNameIsSpelledOutsideTheCatalogue() throws IOException {
        Set<String> names = new TreeSet<>();
        for (OpKind kind : OpKind.values()) {
            for (String name : List.of(kind.method(), kind.cName())) {
                names.add(name.toLowerCase(Locale.ROOT));
                names.add(("nccl" + name).toLowerCase(Locale.ROOT));
                names.add(("mccl" + name).toLowerCase(Locale.ROOT));
            }
        }
        names.removeAll(Set.of("send", "recv"));
        Path root = Path.of("..");
        List<String> found = new ArrayList<>();
        int files = 0;
        for (String module : MODULES) {
            Path main = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(main)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(main)) {
                for (Path file :
                        walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                    Path relative = root.relativize(file);
                    if (file.getFileName().toString().equals("OpKind.java") || relative.startsWith(CONTROL_PLANE)) {
                        continue;
                    }
                    files++;
                    found.addAll(literalNames(relative, read(file), names));
                }
            }
        }
        assertTrue(files > 100, "the scan reads the modules' sources: " + files + " files");
        assertEquals(List.of(), found);
    }

    private static List<String> literalNames(Path file, String source, Set<String> names) {
        List<String> found = new ArrayList<>();
        String code = withoutComments(source);
        Matcher m = STRING_LITERAL.matcher(code);
        while (m.find()) {
            // a name, or a list of names ("allreduce,allgather": an option's default); prose may mention one
            boolean listsNames = Arrays.stream(m.group(1).split(",", -1))
                    .allMatch(part -> names.contains(part.strip().toLowerCase(Locale.ROOT)));
            if (listsNames) {
                found.add(file + ": \"" + m.group(1) + "\"");
            }
        }
        return found;
    }

    /** The source with its comments blanked; string literals kept (a "//" inside one is not a comment). */
    private static String withoutComments(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (c == '"') {
                int end = i + 1;
                while (end < source.length() && source.charAt(end) != '"') {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                out.append(source, i, Math.min(end + 1, source.length()));
                i = end + 1;
            } else if (c == '\'' && i + 2 < source.length()) {
                int end = source.indexOf('\'', i + (source.charAt(i + 1) == '\\' ? 3 : 2));
                out.append(source, i, end + 1);
                i = end + 1;
            } else if (source.startsWith("//", i)) {
                int end = source.indexOf('\n', i);
                i = end < 0 ? source.length() : end;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? source.length() : end + 2;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
