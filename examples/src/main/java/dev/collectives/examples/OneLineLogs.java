package dev.collectives.examples;

/**
 * The command line's log format: one line a record ({@code 17:02:03.120 INFO dev.collectives.recovery: shrink: ...}),
 * instead of java.util.logging's two, so that a rank's log reads in order with what it prints. A format the user set
 * (the system property, or a logging configuration file) wins.
 */
public final class OneLineLogs {
    /** The property java.util.logging's {@code SimpleFormatter} reads its format from. */
    static final String FORMAT_PROPERTY = "java.util.logging.SimpleFormatter.format";
    /** The time, the level, the logger, the message and a thrown exception's trace, if any. */
    static final String FORMAT = "%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n";

    private OneLineLogs() {}

    /** Sets the format, unless the user set one; call it before anything logs. */
    public static void configure() {
        if (System.getProperty(FORMAT_PROPERTY) == null
                && System.getProperty("java.util.logging.config.file") == null) {
            System.setProperty(FORMAT_PROPERTY, FORMAT);
        }
    }
}
