package dev.collectives.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code -V} of the runner and the tools: the version this build filtered into {@code version.properties}. */
public final class BuildVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
        Properties build = new Properties();
        try (InputStream in = BuildVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from the classpath");
            }
            build.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new String[] {"Collectives " + build.getProperty("version")};
    }
}
