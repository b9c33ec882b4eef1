package dev.collectives.runtime;

import java.net.URL;
import java.security.CodeSource;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The frames of a trace that belong to the program using this library, so that a failure points at the caller's
 * code first: not this library's runtime and backends (the classes that came from where this class came from), not
 * the JDK's, and not the pipeline classes the processor generated (which implement {@link Pipeline}).
 */
final class CallerFrames {
    private static final URL LIBRARY = location(CallerFrames.class);

    private CallerFrames() {}

    /** The first frame of {@code failure}'s trace in the caller's code, if any. */
    static Optional<StackTraceElement> firstOutside(Throwable failure) {
        return Arrays.stream(failure.getStackTrace()).filter(f -> !ofLibrary(f)).findFirst();
    }

    /** {@code trace} from its first frame in the caller's code on; all of it where there is none. */
    static StackTraceElement[] fromCaller(StackTraceElement[] trace) {
        int first = 0;
        while (first < trace.length && ofLibrary(trace[first])) {
            first++;
        }
        return first == trace.length ? trace : Arrays.copyOfRange(trace, first, trace.length);
    }

    private static boolean ofLibrary(StackTraceElement frame) {
        Class<?> type;
        try {
            type = Class.forName(frame.getClassName(), false, CallerFrames.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return false; // a class this library cannot see: the caller's
        }
        URL where = location(type);
        return where == null || Objects.equals(where, LIBRARY) || Pipeline.class.isAssignableFrom(type);
    }

    /** Where {@code type} was loaded from; null for the JDK's own classes. */
    private static URL location(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        return source == null ? null : source.getLocation();
    }
}
