package dev.collectives.processor;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaFileObject;

/** Test sources in package {@code test} with the DSL's imports, and the compiler that runs the processor on them. */
final class Sources {
    static final String PACKAGE = "test";
    private static final List<String> HEADER = List.of(
            "package " + PACKAGE + ";",
            "import dev.collectives.annotation.*;",
            "import dev.collectives.runtime.*;",
            "import dev.collectives.annotation.Window;");

    private final String name;
    private final List<String> lines = new ArrayList<>();
    private JavaFileObject file;

    private Sources(String name, String... body) {
        this.name = name;
        lines.addAll(HEADER);
        lines.addAll(List.of(body));
    }

    /** A top-level type {@code test.<name>} with these lines after the package and imports. */
    static Sources of(String name, String... body) {
        return new Sources(name, body);
    }

    /** {@code @CollectivePipeline(<attributes>) interface P { <members> }}. */
    static Sources pipeline(String attributes, String... members) {
        List<String> body = new ArrayList<>();
        body.add("@CollectivePipeline(" + attributes + ")");
        body.add("interface P {");
        body.addAll(List.of(members));
        body.add("}");
        return new Sources("P", body.toArray(new String[0]));
    }

    JavaFileObject file() {
        if (file == null) {
            file = JavaFileObjects.forSourceLines(PACKAGE + "." + name, lines);
        }
        return file;
    }

    /** The 1-based line of the only line containing {@code marker}. */
    int line(String marker) {
        int found = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                if (found >= 0) {
                    throw new IllegalArgumentException("marker `" + marker + "` is on more than one line");
                }
                found = i + 1;
            }
        }
        if (found < 0) {
            throw new IllegalArgumentException("no line contains `" + marker + "`");
        }
        return found;
    }

    /** javac with the processor, all lints on; {@code -Werror} where generated code must compile cleanly. */
    static Compiler compiler(boolean warningsAreErrors) {
        List<String> options = new ArrayList<>(List.of("-Xlint:all"));
        if (warningsAreErrors) {
            options.add("-Werror");
        }
        return Compiler.javac().withProcessors(new CollectivesProcessor()).withOptions(options);
    }

    Compilation compile() {
        return compiler(false).compile(file());
    }
}
