package dev.collectives.tools;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

/**
 * A copy of the repository's scripts ({@code collectives}, {@code gpu/}) in a folder laid out as a clone after the
 * build: {@code tools/target/collectives/collectives.jar} there is a jar of a manifest only, whose main class is the
 * command line's and whose class path is this test's, so that the scripts run the classes under test as they run the
 * built jar.
 */
final class BuiltLayout {
    private BuiltLayout() {}

    /** Lays the scripts out under {@code root}, with the jar when {@code built}; returns {@code root}. */
    static Path at(Path root, boolean built) throws IOException {
        Path repository = Path.of("..").toAbsolutePath().normalize();
        Files.createDirectories(root.resolve("gpu"));
        Files.copy(repository.resolve("collectives"), root.resolve("collectives"), StandardCopyOption.COPY_ATTRIBUTES);
        try (var scripts = Files.list(repository.resolve("gpu"))) {
            for (Path script : scripts.filter(p -> p.toString().endsWith(".sh")).toList()) {
                Files.copy(script, root.resolve("gpu").resolve(script.getFileName()));
            }
        }
        if (built) {
            Path jar = root.resolve("tools/target/collectives/collectives.jar");
            Files.createDirectories(jar.getParent());
            Manifest manifest = new Manifest();
            Attributes main = manifest.getMainAttributes();
            main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
            main.put(Attributes.Name.MAIN_CLASS, Tools.class.getName());
            main.put(
                    Attributes.Name.CLASS_PATH,
                    ProgramClassPath.entries().stream()
                            .map(entry -> Path.of(entry).toUri().toString())
                            .collect(Collectors.joining(" ")));
            try (OutputStream file = Files.newOutputStream(jar);
                    JarOutputStream out = new JarOutputStream(file, manifest)) {
                out.flush();
            }
        }
        return root;
    }
}
