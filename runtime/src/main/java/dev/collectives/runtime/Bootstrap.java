package dev.collectives.runtime;

import static dev.collectives.runtime.BootstrapSources.check;
import static dev.collectives.runtime.BootstrapSources.defaultDevice;
import static dev.collectives.runtime.BootstrapSources.first;
import static dev.collectives.runtime.BootstrapSources.masterAddress;
import static dev.collectives.runtime.BootstrapSources.parseUniqueId;

import dev.collectives.runtime.bootstrap.ControlPlane;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.Settings.Explicit;
import dev.collectives.runtime.bootstrap.Settings.Sourced;
import dev.collectives.runtime.internal.SettingValues;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;

/**
 * Who this process is in a multi-process job, and where the job's ranks meet. Give it to
 * {@code backend.join(bootstrap)}.
 *
 * <p>Each setting is taken from the first of: the {@link Builder}; a system property ({@code -Dcollectives.rank=1});
 * a {@code COLLECTIVES_*} variable; the variables of the launcher that started the process — Open MPI
 * ({@code OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE}), PMI ({@code PMI_RANK}, {@code PMI_SIZE},
 * {@code MPI_LOCALRANKID}, {@code MPI_LOCALNRANKS}), torchrun ({@code RANK}, {@code WORLD_SIZE},
 * {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE}) or Slurm ({@code SLURM_PROCID}, {@code SLURM_NTASKS},
 * {@code SLURM_LOCALID}, {@code SLURM_NTASKS_PER_NODE}), in that order.
 *
 * <p>The settings, their variables, system properties and defaults, are the guide's settings table; {@link #describe}
 * gives each value this process has and where it came from, the device backends' settings among them.
 *
 * <p>A backend reads settings of its own through {@link #option(String)}: {@code option("sim.mtlinkSharp")} is
 * {@link Builder#option}, else {@code -Dcollectives.sim.mtlinkSharp}, else {@code COLLECTIVES_SIM_MTLINK_SHARP}.
 * The options {@code replacement} and {@code rendezvousServer}: see {@link RendezvousServer}; the option
 * {@code joining} ({@code COLLECTIVES_JOINING=1}): see {@link #joining}.
 */
public final class Bootstrap {
    /** The logger of joining a job: the settings used, then joined or why not. */
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private final Sourced<Integer> rank;
    private final Sourced<Integer> size;
    private final Sourced<Integer> localRank;
    private final Optional<Sourced<Integer>> localSize;
    private final Sourced<Integer> device;
    private final Optional<Sourced<RendezvousEndpoint>> endpoint;
    /** Where the ranks meet instead of an endpoint, and its description; null for none. */
    private final Gatherer gatherer;

    private final String gathererWhere;
    private final Sourced<Duration> timeout;
    private final Sourced<Duration> heartbeatTimeout;
    private final Optional<String> jobToken;
    /** The unique id the ranks form their communicator from, made elsewhere; then there is no rendezvous. */
    private final Optional<Sourced<UniqueId>> uniqueId;

    private final Sourced<Peers> peers;
    private final Settings settings;
    /** The environment and system properties the settings fall back on, as the builder was given them. */
    private final Map<String, String> environment;

    private final Properties properties;
    private final Map<String, String> options;

    private Bootstrap(Builder b) {
        Settings settings = new Settings(b.environment, b.properties);
        this.settings = settings;
        this.environment = b.environment;
        this.properties = b.properties;
        this.options = Map.copyOf(b.options);
        Optional<Launcher> launcher = Launcher.detect(b.environment);
        String launcherNote = launcher.map(l -> ", from " + l).orElse("");

        Optional<Sourced<Integer>> givenSize = first(
                b.size,
                () -> settings.explicitInt(Explicit.WORLD_SIZE),
                () -> launcher.map(l -> settings.variableInt(l.sizeVariable)
                        .orElseThrow(() -> BootstrapException.settings(
                                -1, l.rankVariable + " is set but " + l.sizeVariable + " is not" + launcherNote))));
        Optional<Sourced<Integer>> givenRank = first(
                b.rank,
                () -> settings.explicitInt(Explicit.RANK),
                () -> launcher.flatMap(l -> settings.variableInt(l.rankVariable)));
        this.size = givenSize.orElse(new Sourced<>(1, "default: no launcher found"));
        if (givenRank.isEmpty() && size.value() != 1) {
            throw BootstrapException.settings(
                    -1,
                    "the world size is " + size + " but no rank is set: set " + Explicit.RANK.variable
                            + " or start the processes with mpirun, srun or torchrun");
        }
        this.rank = givenRank.orElse(new Sourced<>(0, "default: a single process"));
        int r = rank.value();
        check(size.value() >= 1, r, "the world size " + size + " is not positive");
        check(
                r >= 0 && r < size.value(),
                r,
                "rank " + rank + " is not in 0.." + (size.value() - 1) + " (world size " + size + ")");

        this.localRank = first(
                        b.localRank,
                        () -> settings.explicitInt(Explicit.LOCAL_RANK),
                        () -> launcher.flatMap(l -> settings.variableInt(l.localRankVariable)))
                .orElse(new Sourced<>(0, "default: one process per node"));
        this.localSize = first(
                b.localSize,
                () -> settings.explicitInt(Explicit.LOCAL_SIZE),
                () -> launcher.flatMap(l -> settings.variableIntIfWhole(l.localSizeVariable)));
        check(localRank.value() >= 0, r, "the local rank " + localRank + " is negative");
        localSize.ifPresent(ls -> check(
                localRank.value() < ls.value(),
                r,
                "the local rank " + localRank + " is not below the local size " + ls));
        this.device = first(b.device, () -> settings.explicitInt(Explicit.DEVICE))
                .orElseGet(() -> defaultDevice(settings, localRank));
        check(device.value() >= 0, r, "the device " + device + " is negative");

        this.uniqueId = first(
                b.uniqueId,
                () -> settings.explicit(Explicit.UNIQUE_ID).map(s -> new Sourced<>(parseUniqueId(s), s.source())));
        this.peers = first(
                        b.peers,
                        () -> settings.explicit(Explicit.PEERS)
                                .map(s -> new Sourced<>(Peers.parse(s.value(), s.source()), s.source())))
                .orElse(new Sourced<>(Peers.FOREIGN, "default"));
        this.gatherer = uniqueId.isPresent() ? null : b.gatherer;
        this.gathererWhere = b.gathererWhere;
        this.endpoint = gatherer != null || uniqueId.isPresent()
                ? Optional.empty()
                : first(
                        b.endpoint,
                        () -> settings.explicit(Explicit.RENDEZVOUS)
                                .map(s -> new Sourced<>(RendezvousEndpoint.parse(s.value()), s.source())),
                        () -> masterAddress(settings));
        this.timeout = first(
                        b.timeout,
                        () -> settings.explicit(Explicit.TIMEOUT)
                                .map(s -> new Sourced<>(Settings.parseDuration(s.value(), s.source()), s.source())))
                .orElse(new Sourced<>(Settings.DEFAULT_TIMEOUT, "default"));
        check(
                !timeout.value().isNegative() && !timeout.value().isZero(),
                r,
                "the bootstrap timeout " + timeout + " is not positive");
        this.heartbeatTimeout = sourcedOption(Settings.HEARTBEAT_TIMEOUT)
                .map(t -> new Sourced<>(Settings.parseDuration(t.value(), t.source()), t.source()))
                .orElse(new Sourced<>(Settings.DEFAULT_HEARTBEAT_TIMEOUT, "default"));
        check(
                !heartbeatTimeout.value().isNegative()
                        && !heartbeatTimeout.value().isZero(),
                r,
                "the heartbeat timeout " + heartbeatTimeout + " is not positive");
        this.jobToken = Optional.ofNullable(b.jobToken)
                .or(() -> settings.variable(Settings.JOB_TOKEN).map(Sourced::value));
    }

    /** Settings from {@link System#getenv()} and {@link System#getProperties()}. */
    public static Bootstrap fromEnvironment() {
        return builder()
                .environment(System.getenv())
                .properties(System.getProperties())
                .build();
    }

    /** Settings from {@code environment} only (tests, or a launcher wrapper that has the variables at hand). */
    public static Bootstrap fromEnvironment(Map<String, String> environment) {
        return builder().environment(environment).build();
    }

    /**
     * Explicit settings; everything not set here is looked up in the environment and properties given to the
     * builder (none unless {@link Builder#environment} and {@link Builder#properties} are called).
     */
    public static Builder builder() {
        return new Builder();
    }

    /** This process's rank in the job. */
    public int rank() {
        return rank.value();
    }

    /** The number of ranks of the job. */
    public int size() {
        return size.value();
    }

    /** This process's index among the job's processes on this node. */
    public int localRank() {
        return localRank.value();
    }

    /** How many of the job's processes run on this node, when the launcher says. */
    public OptionalInt localSize() {
        return localSize.map(s -> OptionalInt.of(s.value())).orElse(OptionalInt.empty());
    }

    /** The device ordinal this process uses. */
    public int device() {
        return device.value();
    }

    /** Where the ranks meet; empty when nothing says (one process needs none) or they meet through a gatherer. */
    public Optional<RendezvousEndpoint> endpoint() {
        return endpoint.map(Sourced::value);
    }

    /** The unique id the ranks form their communicator from, with no rendezvous: made by CuPy, PyTorch, or here. */
    public Optional<UniqueId> uniqueId() {
        return uniqueId.map(Sourced::value);
    }

    /** Whether every rank of a job formed from a {@link #uniqueId()} runs this library; {@code FOREIGN} unless set. */
    public Peers peers() {
        return peers.value();
    }

    /** How long each bootstrap step (joining, each exchange) may take before it fails. */
    public Duration timeout() {
        return timeout.value();
    }

    /** The job's token, as joining takes it. */
    Optional<String> jobToken() {
        return jobToken;
    }

    /**
     * How long this rank waits for a sign of life from the rendezvous server before it fails naming it; where this
     * process serves the rendezvous, how long a rank may be silent before it is declared dead and excluded.
     */
    public Duration heartbeatTimeout() {
        return heartbeatTimeout.value();
    }

    /**
     * A backend's own setting, e.g. {@code "sim.timeout"}: from {@link Builder#option}, else the system property
     * {@code collectives.sim.timeout}, else the variable {@code COLLECTIVES_SIM_TIMEOUT} (see
     * {@link #optionVariable}); empty when none is set.
     */
    public Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name))
                .or(() -> settings.option(name).map(Sourced::value));
    }

    /** The option {@code name} as a duration ("30s", "500ms", "2m", "PT30S"); fails naming where another came from. */
    public Optional<Duration> durationOption(String name) {
        return sourcedOption(name).map(t -> Settings.parseDuration(t.value(), t.source()));
    }

    private Optional<Sourced<String>> sourcedOption(String name) {
        String given = options.get(name);
        return given != null ? Optional.of(new Sourced<>(given, "builder option " + name)) : settings.option(name);
    }

    /** The variable that sets option {@code name}: "sim.mtlinkSharp" is COLLECTIVES_SIM_MTLINK_SHARP. */
    public static String optionVariable(String name) {
        return Settings.optionVariable(name);
    }

    /** The system property that sets option {@code name}: "sim.mtlinkSharp" is collectives.sim.mtlinkSharp. */
    public static String optionProperty(String name) {
        return Settings.optionProperty(name);
    }

    /**
     * Meets the other ranks at {@link #endpoint()}, authenticating them with the job token, or through the
     * {@link Builder#gatherer}, which needs no token; returns once this rank has joined (rank 0: once every rank
     * has). Fails with a {@link BootstrapException} when the settings
     * are incomplete, or when the job does not form within {@link #timeout()}.
     *
     * <p>For backends: {@code backend.join(bootstrap)} calls it, and the {@link Rendezvous} it returns is the control
     * plane's, not API.
     */
    public Rendezvous rendezvous() {
        if (size() == 1 && !joining()) {
            return ControlPlane.alone();
        }
        LOG.log(Level.DEBUG, () -> "joining: " + describe());
        try {
            Rendezvous joined = meet();
            LOG.log(
                    Level.DEBUG,
                    () -> joined.joining()
                            ? "a process joined the job at " + joined.where() + " as rank " + joined.rank()
                                    + ", to be taken in at its next growth"
                            : "rank " + rank() + " joined the job of " + size() + " ranks at " + joined.where());
            return joined;
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "rank " + rank() + " could not join the job: " + e.getMessage(), e);
            throw e;
        }
    }

    private Rendezvous meet() {
        if (uniqueId.isPresent()) {
            throw BootstrapException.settings(
                    rank(),
                    "no rendezvous: the ranks form their communicator from the " + uniqueId.get()
                            + "; join with backend.join(bootstrap) on nccl or mccl");
        }
        if (gatherer != null) {
            return ControlPlane.gathered(rank(), size(), gathererWhere, timeout(), gatherer);
        }
        RendezvousEndpoint where = endpoint()
                .orElseThrow(
                        () -> BootstrapException.settings(
                                rank(),
                                "no rendezvous for a job of " + size() + " ranks: set " + Explicit.RENDEZVOUS.variable
                                        + "=tcp://<rank 0's host>:<port> or =file:/shared/directory, or MASTER_ADDR and MASTER_PORT"));
        String token = jobToken.orElseThrow(() -> BootstrapException.settings(
                rank(),
                "no job token: set "
                        + Settings.JOB_TOKEN + " to the same secret on every rank (e.g. export "
                        + Settings.JOB_TOKEN
                        + "=$(openssl rand -hex 32) before launching)"));
        boolean replacement = Settings.replacement(option(Settings.REPLACEMENT), rank(), where);
        boolean joining = joining();
        if (replacement && joining) {
            throw BootstrapException.settings(
                    rank(),
                    "a process either replaces a rank that died or joins a running job at its next growth, not both:"
                            + " set only one of " + Settings.optionVariable(Settings.REPLACEMENT) + " and "
                            + Settings.optionVariable(Settings.JOINING));
        }
        return ControlPlane.meet(
                where, rank(), size(), token, timeout(), heartbeatTimeout(), replacement, joining, this::option);
    }

    /**
     * Whether this process joins a running job at its next growth (the option {@code joining},
     * {@code COLLECTIVES_JOINING=1}): it needs no rank or world size, the job's tcp:// rendezvous gives it both
     * ({@link Rendezvous#joining}); a backend's {@code join} then takes it in where the members grow the job.
     */
    public boolean joining() {
        return Settings.joining(option(Settings.JOINING), rank(), endpoint().orElse(null));
    }

    /** Whether this process joins a running job, for {@link #describe}: a setting that is no flag says no here. */
    private boolean joiningQuietly() {
        try {
            return joining();
        } catch (BootstrapException e) {
            return false;
        }
    }

    /**
     * Every setting and where it came from (never the job token), then the device backends' settings as this
     * process has them (the backends read them from the same environment and system properties).
     */
    public String describe() {
        String where = uniqueId.map(id -> "none: a " + id.value() + " (" + id.source() + "), peers "
                        + peers.value().text() + " (" + peers.source() + ")")
                .orElseGet(() -> gatherer != null
                        ? gathererWhere
                        : endpoint.map(Object::toString).orElse("none"));
        String who = joiningQuietly()
                ? "a process that joins a running job (its rank and world size come from the rendezvous)"
                : "rank " + rank + ", world size " + size;
        return who + ", local rank " + localRank + ", local size "
                + localSize.map(Object::toString).orElse("unknown") + ", device " + device + ", rendezvous " + where
                + (Settings.namesStandalone(option(Settings.SERVER)) ? " served by a rendezvous server of its own" : "")
                + ", timeout " + Settings.formatDuration(timeout()) + " (" + timeout.source() + "), heartbeat timeout "
                + Settings.formatDuration(heartbeatTimeout()) + " (" + heartbeatTimeout.source() + "), job token "
                + (jobToken.isPresent() ? "set" : "not set") + "; device backends: "
                + SettingValues.describe(SettingValues.DEVICE, environment, properties);
    }

    @Override
    public String toString() {
        return "Bootstrap[" + describe() + "]";
    }

    /** Explicit settings; they take precedence over system properties and the environment. */
    public static final class Builder {
        private Map<String, String> environment = Map.of();
        private Properties properties = new Properties();
        private Integer rank;
        private Integer size;
        private Integer localRank;
        private Integer localSize;
        private Integer device;
        private RendezvousEndpoint endpoint;
        private Gatherer gatherer;
        private String gathererWhere;
        private Duration timeout;
        private String jobToken;
        private UniqueId uniqueId;
        private Peers peers;
        private final Map<String, String> options = new HashMap<>();

        private Builder() {}

        /** A backend's own setting, e.g. {@code option("sim.mtlinkSharp", "true")}: see {@link Bootstrap#option}. */
        public Builder option(String name, String value) {
            options.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** The variables to fall back on (launcher conventions, COLLECTIVES_*); none by default. */
        public Builder environment(Map<String, String> environment) {
            this.environment = Map.copyOf(environment);
            return this;
        }

        /** The system properties to fall back on ({@code collectives.*}); none by default. */
        public Builder properties(Properties properties) {
            this.properties = (Properties) properties.clone();
            return this;
        }

        /** This process's rank. */
        public Builder rank(int rank) {
            this.rank = rank;
            return this;
        }

        /** The number of ranks of the job. */
        public Builder size(int size) {
            this.size = size;
            return this;
        }

        /** This process's rank among those on its node. */
        public Builder localRank(int localRank) {
            this.localRank = localRank;
            return this;
        }

        /** How many ranks run on this node. */
        public Builder localSize(int localSize) {
            this.localSize = localSize;
            return this;
        }

        /** The device this rank uses. */
        public Builder device(int device) {
            this.device = device;
            return this;
        }

        /** Where the ranks meet. */
        public Builder rendezvous(RendezvousEndpoint endpoint) {
            this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
            return this;
        }

        /**
         * The ranks meet through {@code gatherer}, a service that already holds them together (a Spark barrier
         * stage), instead of at an endpoint; {@code where} names it in messages. It takes precedence over any
         * endpoint, and needs no job token.
         */
        public Builder gatherer(String where, Gatherer gatherer) {
            this.gathererWhere = Objects.requireNonNull(where, "where");
            this.gatherer = Objects.requireNonNull(gatherer, "gatherer");
            return this;
        }

        /** {@code tcp://host:port} or {@code file:/shared/directory}. */
        public Builder rendezvous(String endpoint) {
            return rendezvous(RendezvousEndpoint.parse(endpoint));
        }

        /** How long each bootstrap step may take. */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** The secret every rank of the job shares. */
        public Builder jobToken(String jobToken) {
            this.jobToken = Objects.requireNonNull(jobToken, "jobToken");
            return this;
        }

        /** The ranks form their communicator from {@code uniqueId}, with no rendezvous (see {@code uniqueId()}). */
        public Builder uniqueId(UniqueId uniqueId) {
            this.uniqueId = Objects.requireNonNull(uniqueId, "uniqueId");
            return this;
        }

        /** Whether every rank of a job formed from a unique id runs this library: see {@link Peers}. */
        public Builder peers(Peers peers) {
            this.peers = Objects.requireNonNull(peers, "peers");
            return this;
        }

        /** The settings given, completed from the environment and the system properties. */
        public Bootstrap build() {
            return new Bootstrap(this);
        }
    }
}
