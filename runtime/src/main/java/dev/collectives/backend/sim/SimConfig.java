package dev.collectives.backend.sim;

import dev.collectives.runtime.Capabilities;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a simulated cluster looks: its size and topology, the device's VMM granularity and handle types, what the
 * "library" offers (version, MTLink SHARP, IB SHARP, registration, symmetric windows, window helpers), the
 * environment variables the library reads, and how long a rank waits for peers that never arrive.
 */
public final class SimConfig {
    /** The variable the sim's library reads for R9 (it speaks the MCCL dialect). */
    public static final String LEGACY_REGISTER_VARIABLE = "MCCL_LEGACY_MUSA_REGISTER";
    /** The default recommended VMM granularity: 2 MiB. */
    public static final long DEFAULT_GRANULARITY = 2L << 20;
    /** How long a rank waits for its peers by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    /** The library version simulated by default, one that registers user buffers. */
    public static final String DEFAULT_LIBRARY_VERSION = "2.28.9";

    private final int ranks;
    private final int ranksPerNode;
    private final long granularity;
    private final Capabilities capabilities;
    private final Map<String, Optional<String>> environmentOverrides;
    private final Duration timeout;
    private final boolean connectAtInit;

    private SimConfig(Builder b) {
        this.ranks = b.ranks;
        this.ranksPerNode = b.ranksPerNode == 0 ? b.ranks : b.ranksPerNode;
        this.granularity = b.granularity;
        this.capabilities = new Capabilities(
                b.libraryVersion,
                b.mtlinkSharp,
                b.ibSharp,
                b.registration,
                b.symmetricWindows,
                b.windowHelpers,
                b.fabricHandles,
                true,
                true);
        this.environmentOverrides = Map.copyOf(b.environment);
        this.timeout = b.timeout;
        this.connectAtInit = b.connectAtInit;
    }

    /** The configuration of a child communicator of {@code ranks} ranks, {@code ranksPerNode} on each node. */
    SimConfig child(int ranks, int ranksPerNode) {
        return new SimConfig(this, ranks, ranksPerNode);
    }

    private SimConfig(SimConfig parent, int ranks, int ranksPerNode) {
        this.ranks = ranks;
        this.ranksPerNode = ranksPerNode;
        this.granularity = parent.granularity;
        this.capabilities = parent.capabilities;
        this.environmentOverrides = parent.environmentOverrides;
        this.timeout = parent.timeout;
        this.connectAtInit = parent.connectAtInit;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The number of ranks. */
    public int ranks() {
        return ranks;
    }

    /** How many ranks share a node. */
    public int ranksPerNode() {
        return ranksPerNode;
    }

    /** The recommended VMM granularity, in bytes. */
    public long granularity() {
        return granularity;
    }

    /** What the simulated library and hardware offer. */
    public Capabilities capabilities() {
        return capabilities;
    }

    /** How long a rank waits for its peers. */
    public Duration timeout() {
        return timeout;
    }

    /** Whether the communicators stand for ones whose peers the library connected when they were made. */
    public boolean connectAtInit() {
        return connectAtInit;
    }

    /** The variable as the library sees it: the cluster's override if any, else the process environment. */
    public Optional<String> environment(String name) {
        Optional<String> override = environmentOverrides.get(name);
        return override != null ? override : Optional.ofNullable(System.getenv(name));
    }

    @Override
    public String toString() {
        return "sim cluster of " + ranks + " ranks (" + ranksPerNode + " per node), granularity " + granularity + ", "
                + capabilities + ", environment overrides " + environmentOverrides + ", timeout " + timeout;
    }

    /** Defaults: 1 rank, all ranks on one node, 2 MiB granularity, no FABRIC handles, library 2.28.9 with
     *  registration, symmetric windows and window helpers but no MTLink or IB SHARP, the process environment,
     *  a 60 s timeout. */
    public static final class Builder {
        private int ranks = 1;
        private int ranksPerNode;
        private long granularity = DEFAULT_GRANULARITY;
        private String libraryVersion = DEFAULT_LIBRARY_VERSION;
        private boolean mtlinkSharp;
        private boolean ibSharp;
        private boolean registration = true;
        private boolean symmetricWindows = true;
        private boolean windowHelpers = true;
        private boolean fabricHandles;
        private final Map<String, Optional<String>> environment = new HashMap<>();
        private Duration timeout = DEFAULT_TIMEOUT;
        private boolean connectAtInit = true;

        private Builder() {}

        /** The number of ranks (at least 1). */
        public Builder ranks(int ranks) {
            if (ranks < 1) {
                throw new IllegalArgumentException("a cluster needs at least one rank, not " + ranks);
            }
            this.ranks = ranks;
            return this;
        }

        /** Ranks that share a node (R8, LSA teams of windows); default: all of them. */
        public Builder ranksPerNode(int ranksPerNode) {
            if (ranksPerNode < 1) {
                throw new IllegalArgumentException("ranksPerNode must be positive, not " + ranksPerNode);
            }
            this.ranksPerNode = ranksPerNode;
            return this;
        }

        /** The recommended VMM granularity (a power of two, at least 4096). */
        public Builder granularity(long granularity) {
            if (granularity < 4096 || Long.bitCount(granularity) != 1) {
                throw new IllegalArgumentException("granularity must be a power of two >= 4096, not " + granularity);
            }
            this.granularity = granularity;
            return this;
        }

        /** The library version the communicators report, e.g. "2.28.9". */
        public Builder libraryVersion(String libraryVersion) {
            this.libraryVersion = Objects.requireNonNull(libraryVersion);
            return this;
        }

        /** Whether the fabric has MTLink SHARP (R3). */
        public Builder mtlinkSharp(boolean present) {
            this.mtlinkSharp = present;
            return this;
        }

        /** Whether IB SHARP (CollNet) is enabled (R8). */
        public Builder ibSharp(boolean enabled) {
            this.ibSharp = enabled;
            return this;
        }

        /** Whether user buffer registration is supported at all (as in MCCL 2.28.9 or later, and NCCL). */
        public Builder registration(boolean supported) {
            this.registration = supported;
            return this;
        }

        /** Whether symmetric windows are supported (R12). */
        public Builder symmetricWindows(boolean supported) {
            this.symmetricWindows = supported;
            return this;
        }

        /** Whether {@code WinGetUserPtr} and {@code GetLsaDevicePointer} exist (R10). */
        public Builder windowHelpers(boolean present) {
            this.windowHelpers = present;
            return this;
        }

        /** Whether the device exports FABRIC VMM handles (R11). */
        public Builder fabricHandles(boolean supported) {
            this.fabricHandles = supported;
            return this;
        }

        /** The library sees {@code name} set to {@code value}, or unset when {@code value} is null. */
        public Builder environment(String name, String value) {
            environment.put(Objects.requireNonNull(name), Optional.ofNullable(value));
            return this;
        }

        /** How long a rank waits for peers in a collective, a window registration or a send/recv. */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, not " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Whether the communicators stand for ones whose peers the library connected when they were made (the
         * default), or for ones connected lazily, as NCCL's are unless told otherwise: then a GRAPH step's first call
         * with each argument tuple runs eagerly before it is captured ({@link
         * dev.collectives.runtime.Communicator#peersConnectedAtInit}).
         */
        public Builder connectAtInit(boolean connected) {
            this.connectAtInit = connected;
            return this;
        }

        /** The configuration, without starting a cluster. */
        public SimConfig config() {
            return new SimConfig(this);
        }

        /** Starts a cluster of this configuration; close it to destroy its communicators. */
        public SimCluster build() {
            return new SimCluster(config());
        }
    }
}
