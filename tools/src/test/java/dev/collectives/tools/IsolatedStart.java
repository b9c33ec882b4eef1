package dev.collectives.tools;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Starts the command line as Maven's {@code exec:java} does: its classes in a class loader of their own, while
 * {@code java.class.path} holds only this launcher. Arguments: the class path of the command line, then its arguments.
 */
public final class IsolatedStart {
    /** By name: the class itself must not be loaded by this launcher's loader. */
    private static final String COMMAND_LINE = "dev.collectives.tools.Tools";

    private IsolatedStart() {}

    public static void main(String[] args) throws Exception {
        String[] entries = args[0].split(File.pathSeparator);
        URL[] urls = new URL[entries.length];
        for (int i = 0; i < entries.length; i++) {
            urls[i] = Path.of(entries[i]).toUri().toURL();
        }
        try (URLClassLoader program = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(program);
            program.loadClass(COMMAND_LINE).getMethod("main", String[].class).invoke(null, (Object)
                    Arrays.copyOfRange(args, 1, args.length));
        }
    }
}
