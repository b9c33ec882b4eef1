package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Looks settings up where {@link dev.collectives.runtime.Bootstrap} documents them, remembering where each value came
 * from so that {@code Bootstrap.describe()} and error messages can say it. Public only for {@code Bootstrap}; not API.
 */
public final class Settings {
    /** The job token: only from the environment or the builder, never a system property (visible in ps). */
    public static final String JOB_TOKEN = "COLLECTIVES_JOB_TOKEN";

    public static final List<String> VISIBLE_DEVICES = List.of("CUDA_VISIBLE_DEVICES", "MUSA_VISIBLE_DEVICES");
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

    /**
     * The option that says how long a rank, or the rendezvous server, may be silent before the other end declares
     * it dead ({@code COLLECTIVES_HEARTBEAT_TIMEOUT}, {@code collectives.heartbeatTimeout}).
     */
    public static final String HEARTBEAT_TIMEOUT = "heartbeatTimeout";

    /**
     * A second and a half: beats go out every 250 ms (a sixth), and the server declares a rank dead as soon as it has
     * been silent that long, so a frozen or cut-off rank is declared dead within 2 s of its last sign of life. On a
     * 2-core host with both cores busy, the longest silence of a living rank was under 0.9 s, while its JVM started
     * (class loading and compiling beside the busy cores); once started, under 0.3 s. A stop-the-world collection
     * stops the beats too: a job whose ranks pause longer (a full collection of a heap of gigabytes takes seconds)
     * sets a longer timeout.
     */
    public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Duration.ofMillis(1500);

    /**
     * The option that marks this process as the replacement of a rank that died ({@code COLLECTIVES_REPLACEMENT},
     * {@code collectives.replacement}, or {@code Bootstrap.Builder.option("replacement", "true")}).
     */
    public static final String REPLACEMENT = "replacement";

    /**
     * The option that marks this process as one that joins a running job at its next growth
     * ({@code COLLECTIVES_JOINING}, {@code collectives.joining}, or {@code Bootstrap.Builder.option("joining",
     * "true")}): it needs no rank or world size, the job's rendezvous gives it both.
     */
    public static final String JOINING = "joining";

    /**
     * The option that says who serves a tcp:// rendezvous ({@code COLLECTIVES_RENDEZVOUS_SERVER},
     * {@code collectives.rendezvousServer}): {@code rank0} (the default) or {@code standalone}, a
     * {@code JobServer} that every rank joins.
     */
    public static final String SERVER = "rendezvousServer";

    /**
     * The option that says how long ranks must have waited in an entry that another rank never enqueued before the
     * server gives its hang verdict ({@code COLLECTIVES_HANG_VERDICT}, {@code collectives.hangVerdict}).
     */
    public static final String HANG_VERDICT = "hangVerdict";

    /**
     * Ten seconds: far below the operation timeout (two minutes), so the verdict comes before the job ends, and far
     * above a step's ordinary wait for its slowest rank.
     */
    public static final Duration DEFAULT_HANG_VERDICT = Duration.ofSeconds(10);

    /**
     * The option that turns the rendezvous server's live page of the job on, at a port of the loopback interface
     * ({@code COLLECTIVES_JOB_PAGE}, {@code collectives.jobPage}; 0: any free port); off unless set.
     */
    public static final String JOB_PAGE = "jobPage";

    /** This process's settings: its environment and system properties. */
    public static Settings ofProcess() {
        return new Settings(System.getenv(), System.getProperties());
    }

    /** A setting that may be given explicitly, as a system property or a COLLECTIVES_* variable. */
    public enum Explicit {
        RANK(Setting.RANK),
        WORLD_SIZE(Setting.WORLD_SIZE),
        LOCAL_RANK(Setting.LOCAL_RANK),
        LOCAL_SIZE(Setting.LOCAL_SIZE),
        DEVICE(Setting.DEVICE),
        RENDEZVOUS(Setting.RENDEZVOUS),
        TIMEOUT(Setting.BOOTSTRAP_TIMEOUT),
        UNIQUE_ID(Setting.UNIQUE_ID),
        PEERS(Setting.PEERS);

        public final String variable;
        public final String property;

        Explicit(Setting setting) {
            this.variable = setting.variable;
            this.property = setting.property;
        }
    }

    /** A value and where it came from ("OMPI_COMM_WORLD_RANK", "system property collectives.rank", "builder"). */
    public record Sourced<T>(T value, String source) {
        @Override
        public String toString() {
            return value + " (" + source + ")";
        }
    }

    private final Map<String, String> environment;
    private final Properties properties;

    public Settings(Map<String, String> environment, Properties properties) {
        this.environment = environment;
        this.properties = properties;
    }

    /** The system property, else the COLLECTIVES_* variable. */
    public Optional<Sourced<String>> explicit(Explicit setting) {
        String property = properties.getProperty(setting.property);
        if (property != null && !property.isBlank()) {
            return Optional.of(new Sourced<>(property.trim(), "system property " + setting.property));
        }
        return variable(setting.variable);
    }

    /**
     * A backend's own setting {@code name} ("sim.timeout"): the system property {@code collectives.sim.timeout},
     * else the variable {@code COLLECTIVES_SIM_TIMEOUT}.
     */
    public Optional<Sourced<String>> option(String name) {
        String property = properties.getProperty(optionProperty(name));
        if (property != null && !property.isBlank()) {
            return Optional.of(new Sourced<>(property.trim(), "system property " + optionProperty(name)));
        }
        return variable(optionVariable(name));
    }

    public static String optionProperty(String name) {
        return "collectives." + name;
    }

    /** "sim.mtlinkSharp" -> "COLLECTIVES_SIM_MTLINK_SHARP" */
    public static String optionVariable(String name) {
        return "COLLECTIVES_"
                + name.replaceAll("([a-z0-9])([A-Z])", "$1_$2")
                        .replace('.', '_')
                        .toUpperCase(Locale.ROOT);
    }

    public Optional<Sourced<String>> variable(String name) {
        String value = environment.get(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(new Sourced<>(value.trim(), name));
    }

    public Optional<Sourced<Integer>> explicitInt(Explicit setting) {
        return explicit(setting).map(Settings::toInt);
    }

    public Optional<Sourced<Integer>> variableInt(String name) {
        return variable(name).map(Settings::toInt);
    }

    /** The variable as a whole number; empty when unset or not a whole number (an optional hint only). */
    public Optional<Sourced<Integer>> variableIntIfWhole(String name) {
        return variable(name).filter(v -> v.value().matches("\\d{1,9}")).map(Settings::toInt);
    }

    /**
     * Whether rank {@code rank} joins the job at {@code where} as the replacement of a rank that died: {@code value}
     * of {@link #REPLACEMENT} is 1 or true (0, false or none: it does not); only a tcp:// rendezvous admits one.
     */
    public static boolean replacement(Optional<String> value, int rank, RendezvousEndpoint where) {
        return flag(
                REPLACEMENT,
                value,
                rank,
                where,
                "the replacement of a rank that died",
                "the replacement of rank " + rank);
    }

    /**
     * Whether this process joins the running job at {@code where} (null: none) at its next growth: {@code value} of
     * {@link #JOINING} is 1 or true (0, false or none: it does not); only a tcp:// rendezvous admits one.
     */
    public static boolean joining(Optional<String> value, int rank, RendezvousEndpoint where) {
        return flag(JOINING, value, rank, where, "a process that joins a running job", "a process that joins");
    }

    /**
     * Whether the option {@code name}, a flag that marks {@code what} ("the replacement of a rank that died"), is
     * set: {@code value} 1 or true (0, false or none: it is not); {@code who} joins through a tcp:// rendezvous only.
     */
    private static boolean flag(
            String name, Optional<String> value, int rank, RendezvousEndpoint where, String what, String who) {
        String text = value.map(v -> v.trim().toLowerCase(Locale.ROOT)).orElse("false");
        boolean set = text.equals("1") || text.equals("true");
        if (!set && !text.equals("0") && !text.equals("false")) {
            throw BootstrapException.settings(
                    rank,
                    optionVariable(name) + " (or " + optionProperty(name) + ") is 1 or true for " + what
                            + ", else 0 or false, not '" + value.get() + "'");
        }
        if (set && (where == null || where.kind() != RendezvousEndpoint.Kind.TCP)) {
            throw BootstrapException.settings(
                    rank,
                    who + " joins a running job through its tcp:// rendezvous, not "
                            + (where == null ? "without a rendezvous" : where));
        }
        return set;
    }

    /** Whether {@code value} of {@link #SERVER} asks for a standalone server; one that is no setting does not. */
    public static boolean namesStandalone(Optional<String> value) {
        return value.filter(v -> v.trim().equalsIgnoreCase("standalone")).isPresent();
    }

    /** Whether a standalone server serves the tcp:// rendezvous: {@code value} of {@link #SERVER}. */
    public static boolean standalone(Optional<String> value, int rank) {
        String text = value.map(v -> v.trim().toLowerCase(Locale.ROOT)).orElse("rank0");
        if (!text.equals("rank0") && !text.equals("standalone")) {
            throw BootstrapException.settings(
                    rank,
                    optionVariable(SERVER) + " (or " + optionProperty(SERVER) + ") is rank0 (rank 0 serves the "
                            + "rendezvous) or standalone (a rendezvous server of its own, which every rank joins), not '"
                            + value.get() + "'");
        }
        return namesStandalone(value);
    }

    private static Sourced<Integer> toInt(Sourced<String> text) {
        try {
            return new Sourced<>(Integer.parseInt(text.value()), text.source());
        } catch (NumberFormatException e) {
            throw BootstrapException.settings(-1, text.source() + " is '" + text.value() + "', not a whole number");
        }
    }

    /** "30" (seconds), "30s", "500ms", "2m" or ISO-8601 ("PT30S"). */
    public static Duration parseDuration(String text, String source) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(
                        Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(
                        Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(
                        Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw BootstrapException.settings(
                    -1, source + " is '" + text + "', not a duration (examples: 30, 30s, 500ms, 2m, PT30S)");
        }
    }

    /** "2 s", "500 ms", "1.5 s" */
    public static String formatDuration(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 1000 == 0) {
            return millis / 1000 + " s";
        }
        return millis < 1000 ? millis + " ms" : millis / 1000.0 + " s";
    }
}
