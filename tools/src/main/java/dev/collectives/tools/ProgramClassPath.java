package dev.collectives.tools;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The class path this program runs from, for the processes it starts: the entries of every class loader from the one
 * that loaded the tools up to the system's, then {@code java.class.path}, each absolute. {@code java.class.path}
 * alone is not enough: under Maven's {@code exec:java} it holds Maven's launcher only, and the program's jars are a
 * class loader's URLs. Started from the command line's jar it names that jar, whose manifest names its libraries; in
 * an IDE it is the whole path.
 */
public final class ProgramClassPath {
    private ProgramClassPath() {}

    /** The class path, as {@code -cp} takes it. */
    public static String text() {
        return String.join(File.pathSeparator, entries());
    }

    static List<String> entries() {
        Set<String> entries = new LinkedHashSet<>();
        // the nearest loader first, as it finds a class before its parents do
        for (ClassLoader loader = ProgramClassPath.class.getClassLoader();
                loader != null;
                loader = loader.getParent()) {
            if (loader instanceof URLClassLoader urls) {
                for (URL url : urls.getURLs()) {
                    entries.add(path(url));
                }
            }
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                entries.add(Path.of(entry).toAbsolutePath().toString());
            }
        }
        return List.copyOf(entries);
    }

    private static String path(URL url) {
        try {
            return Path.of(url.toURI()).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalStateException("a class path entry that is not a file: " + url, e);
        }
    }
}
