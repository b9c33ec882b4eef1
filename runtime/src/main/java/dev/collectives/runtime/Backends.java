package dev.collectives.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** Finds backends with {@link ServiceLoader}. */
public final class Backends {
    /** The environment variable naming the backend {@link #fromEnvironment()} returns. */
    public static final String ENVIRONMENT_VARIABLE = "COLLECTIVES_BACKEND";
    /** The backend used when {@code COLLECTIVES_BACKEND} is not set. */
    public static final String DEFAULT = "sim";
    /**
     * The {@code java} option that lets the class path load native code, as JavaCPP does for every backend: without
     * it JDK 22 and newer print a warning on the first load (and later JDKs may refuse). JDK 17 accepts it too, so a
     * program that starts JVMs of ranks gives it to each.
     */
    public static final String NATIVE_ACCESS_OPTION = "--enable-native-access=ALL-UNNAMED";

    private Backends() {}

    /** Every backend on the class path, available or not. */
    public static List<Backend> all() {
        List<Backend> found = new ArrayList<>();
        ServiceLoader.load(Backend.class, Backends.class.getClassLoader()).forEach(found::add);
        return found;
    }

    /**
     * The backend called {@code name}; fails if it is unknown or unavailable, naming what is missing and the
     * backends that are available.
     */
    public static Backend get(String name) {
        List<Backend> all = all();
        for (Backend backend : all) {
            if (backend.name().equals(name.toLowerCase(Locale.ROOT))) {
                Availability availability = backend.availability();
                if (!availability.isAvailable()) {
                    throw CollectivesException.usage(
                            -1,
                            "backend '" + name + "' is unavailable: " + availability.reason() + "; available backends: "
                                    + describeAvailable(all));
                }
                return backend;
            }
        }
        throw CollectivesException.usage(
                -1,
                "unknown backend '" + name + "'; known backends: "
                        + all.stream().map(Backend::name).collect(Collectors.joining(", "))
                        + "; available: " + describeAvailable(all));
    }

    /** {@code get(System.getenv("COLLECTIVES_BACKEND"))}, or {@code sim} when the variable is unset. */
    public static Backend fromEnvironment() {
        String name = System.getenv(ENVIRONMENT_VARIABLE);
        return get(name == null || name.isBlank() ? DEFAULT : name.trim());
    }

    private static String describeAvailable(List<Backend> all) {
        String names = all.stream()
                .filter(b -> b.availability().isAvailable())
                .map(Backend::name)
                .collect(Collectors.joining(", "));
        return names.isEmpty() ? "none" : names;
    }
}
