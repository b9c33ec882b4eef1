package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.testing.DocPages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code java} block of the README and of the pages under {@code docs/} compiles, with the annotation
 * processor generating and checking its pipelines, as a user's build would: the documentation cannot drift from the
 * API. The convention (CONTRIBUTING.md, "Snippets in the docs"):
 *
 * <ul>
 *   <li>a block that starts with {@code package} is a whole source file;
 *   <li>any other block is a fragment: its leading {@code import} lines are its imports, and the rest is either
 *       top-level types (it starts with an annotation or a type declaration) or statements, which become the body of
 *       a method; fragments of one page share a package, so that a statement may use a pipeline declared above it;
 *   <li>an HTML comment right above a block, {@code <!-- snippet: ... -->}, says more, in parts separated by
 *       {@code ;}: {@code given TYPE NAME, ...} are the method's parameters (what the statements use without
 *       declaring), {@code in DECLARATION} wraps the fragment's members in that type declaration, and
 *       {@code fails TAG} says that the block is a mistake on purpose: it must fail to compile with a message that
 *       starts with {@code [TAG}; {@code excerpt of PATH} says that the block is taken from that source file of
 *       the repository (which its module compiles, with what this module lacks on its class path): each of its
 *       lines, without spaces and end-of-line comments, is in the file, in that order.
 * </ul>
 */
class DocSnippetsTest {
    private static final Path ROOT = DocPages.ROOT;
    private static final Pattern JAVA_BLOCK =
            Pattern.compile("(?:<!-- snippet: ([^\n]*?) -->\n *)?```java\n(.*?)```", Pattern.DOTALL);
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public (?:final |abstract |sealed )*(?:@?interface|class|record|enum) (\\w+)", Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern TYPE_START =
            Pattern.compile("^(?:@|(?:public |final |abstract )*(?:interface|class|record|enum) )");

    /** A java block of a page: where it is, what the comment above it says, and its text. */
    record Snippet(Path page, int line, String directive, String code) {
        String where() {
            return ROOT.relativize(page) + ":" + line;
        }

        String part(String key) {
            for (String part : directive.split(";")) {
                String trimmed = part.strip();
                if (trimmed.startsWith(key + " ")) {
                    return trimmed.substring(key.length() + 1).strip();
                }
            }
            return null;
        }

        /** The package the fragments of this page share: {@code snippets.guide} for docs/guide.md. */
        String pagePackage() {
            String name = page.getFileName().toString();
            return "snippets."
                    + name.substring(0, name.length() - ".md".length())
                            .replaceAll("\\W", "_")
                            .toLowerCase(Locale.ROOT);
        }
    }

    /** A source file written for a snippet, and how many lines of its own come before the snippet's first line. */
    record Written(Snippet snippet, Path file, int linesBefore) {}

    @Test
    void everyJavaBlockOfEveryPageCompilesWithTheProcessor(@TempDir Path dir) throws IOException {
        List<Snippet> snippets = snippets();
        List<Snippet> compiling = snippets.stream()
                .filter(s -> s.part("fails") == null && s.part("excerpt of") == null)
                .toList();
        Map<String, Written> written = new TreeMap<>();
        for (Snippet snippet : compiling) {
            Written file = write(dir.resolve("src"), snippet);
            Written clash = written.put(file.file().toString(), file);
            assertTrue(
                    clash == null,
                    () -> snippet.where() + " declares what " + clash.snippet().where() + " declares: "
                            + file.file().getFileName());
        }
        List<Diagnostic<? extends JavaFileObject>> errors = compile(dir.resolve("classes"), written.values());
        assertTrue(errors.isEmpty(), () -> describe(errors, written.values()));
        System.out.println("compiled " + compiling.size() + " java blocks of "
                + snippets.stream()
                        .map(s -> ROOT.relativize(s.page()).toString())
                        .distinct()
                        .count() + " pages");
    }

    /** Each mistake shown on purpose fails to compile with its rule's tag, and with nothing else. */
    @TestFactory
    Stream<DynamicTest> everyBlockShownAsAMistakeFailsWithItsTag(@TempDir Path dir) throws IOException {
        return snippets().stream()
                .filter(s -> s.part("fails") != null)
                .map(snippet -> DynamicTest.dynamicTest(snippet.where(), () -> {
                    Path own = dir.resolve(snippet.where().replaceAll("\\W", "_"));
                    Written file = write(own.resolve("src"), snippet);
                    List<Diagnostic<? extends JavaFileObject>> errors = compile(own.resolve("classes"), List.of(file));
                    String tag = "[" + snippet.part("fails");
                    assertFalse(errors.isEmpty(), snippet.where() + " compiles, but is shown failing with " + tag);
                    assertTrue(
                            errors.stream()
                                    .allMatch(e -> e.getMessage(Locale.ROOT).startsWith(tag)),
                            () -> snippet.where() + " fails otherwise than with " + tag + ":\n"
                                    + describe(errors, List.of(file)));
                }));
    }

    @Test
    void everyExcerptIsInItsSourceFile() throws IOException {
        for (Snippet snippet : snippets()) {
            String source = snippet.part("excerpt of");
            if (source != null) {
                String file = withoutSpacesOrComments(Files.readString(ROOT.resolve(source)));
                int at = 0;
                for (String line : snippet.code().lines().toList()) {
                    String wanted = withoutSpacesOrComments(line);
                    int found = file.indexOf(wanted, at);
                    assertTrue(
                            found >= 0,
                            snippet.where() + ": not in " + source + ", after what comes before it: " + line);
                    at = found + wanted.length();
                }
            }
        }
    }

    private static String withoutSpacesOrComments(String code) {
        return code.replaceAll("//[^\n]*", "").replaceAll("\\s+", "");
    }

    @Test
    void theSnippetsComeFromEveryPageThatHasThem() throws IOException {
        List<Snippet> snippets = snippets();
        assertTrue(snippets.stream().anyMatch(s -> s.page().endsWith("README.md")), "the README's snippets");
        assertTrue(
                snippets.stream().anyMatch(s -> s.page().endsWith("rules.md") && s.part("fails") != null),
                "the rules page's mistakes");
        assertTrue(snippets.stream().anyMatch(s -> s.code().contains("@Broadcast(")), "the guide shows @Broadcast");
    }

    /** The java blocks of README.md and docs/*.md, in page order. */
    static List<Snippet> snippets() throws IOException {
        return DocPages.find(JAVA_BLOCK).stream()
                .map(f -> new Snippet(
                        f.page(),
                        f.line(),
                        f.match().group(1) == null ? "" : f.match().group(1),
                        f.match().group(2)))
                .toList();
    }

    /** The snippet as a source file: as it is, or wrapped as its kind and its directive say. */
    private static Written write(Path root, Snippet snippet) throws IOException {
        String code = snippet.code();
        if (PACKAGE.matcher(code).lookingAt()) {
            Matcher type = PUBLIC_TYPE.matcher(code);
            Matcher pkg = PACKAGE.matcher(code);
            assertTrue(type.find() && pkg.find(), snippet.where() + ": a whole file without a public type");
            return written(root, snippet, pkg.group(1), type.group(1), code, 0);
        }
        List<String> lines = code.lines().toList();
        int body = 0;
        while (body < lines.size()
                && (lines.get(body).strip().startsWith("import ")
                        || lines.get(body).isBlank())) {
            body++;
        }
        String imports = String.join("\n", lines.subList(0, body));
        String rest = String.join("\n", lines.subList(body, lines.size()));
        String name = "Snippet" + snippet.line();
        String in = snippet.part("in");
        String given = snippet.part("given");
        String head = "package " + snippet.pagePackage() + ";\n" + imports + "\n";
        String source;
        String prefix;
        if (in != null) {
            Matcher type =
                    Pattern.compile("(?:interface|class|record|enum) (\\w+)").matcher(in);
            assertTrue(type.find(), snippet.where() + ": 'in' names no type: " + in);
            name = type.group(1);
            prefix = head + in + " {\n";
        } else if (TYPE_START.matcher(rest.stripLeading()).find()) {
            Matcher type = PUBLIC_TYPE.matcher(rest);
            name = type.find() ? type.group(1) : name;
            prefix = head;
        } else {
            prefix = head + "class " + name + " {\n    void run(" + (given == null ? "" : given)
                    + ") throws Exception {\n";
        }
        source = prefix + rest + (prefix.equals(head) ? "\n" : "\n}\n" + (in == null ? "}\n" : ""));
        return written(
                root,
                snippet,
                snippet.pagePackage(),
                name,
                source,
                (int) prefix.lines().count() - body);
    }

    private static Written written(Path root, Snippet snippet, String pkg, String type, String source, int before)
            throws IOException {
        Path file = root.resolve(pkg.replace('.', '/')).resolve(type + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        return new Written(snippet, file, before);
    }

    /** The errors of compiling {@code files} with the processor on the class path of this test. */
    private static List<Diagnostic<? extends JavaFileObject>> compile(Path classes, Iterable<Written> files)
            throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Files.createDirectories(classes);
        String path = System.getProperty("java.class.path");
        List<Path> sources = new ArrayList<>();
        files.forEach(w -> sources.add(w.file()));
        try (StandardJavaFileManager fileManager =
                javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            javac.getTask(
                            null,
                            fileManager,
                            diagnostics,
                            List.of(
                                    "-d",
                                    classes.toString(),
                                    "-classpath",
                                    path,
                                    "-processorpath",
                                    path,
                                    "-implicit:none",
                                    "-encoding",
                                    "UTF-8"),
                            null,
                            fileManager.getJavaFileObjectsFromPaths(sources))
                    .call();
        }
        return diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .collect(Collectors.toList());
    }

    /** Each error at the page and line of the snippet it is in, where it is in one. */
    private static String describe(List<Diagnostic<? extends JavaFileObject>> errors, Iterable<Written> files) {
        List<String> lines = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> e : errors) {
            String where = e.getSource() == null ? "" : e.getSource().getName() + ":" + e.getLineNumber();
            for (Written w : files) {
                if (e.getSource() != null && Path.of(e.getSource().toUri()).equals(w.file())) {
                    where = w.snippet().page().getFileName() + ":"
                            + (w.snippet().line() + e.getLineNumber() - 1 - w.linesBefore());
                }
            }
            lines.add(where + ": " + e.getMessage(Locale.ROOT));
        }
        return String.join("\n", lines);
    }
}
