package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;

/**
 * The communicator config ({@code ncclConfig_t}/{@code mcclConfig_t}) fields this project sets; {@link #UNSET}
 * leaves a field to the library. It is passed through {@code CommInitRankConfig} laid out for the library
 * version found (2.27 or 2.28 layout); libraries older than 2.27 get plain {@code CommInitRank}, and only the
 * default config.
 *
 * @param blocking      1 blocking (what this backend expects), 0 non-blocking
 * @param collnetEnable 1 enables IB SHARP (CollNet) on the communicator (R8)
 * @param ctaPolicy     0 default, 1 efficiency, 2 zero (2.28)
 */
public record CommConfig(int blocking, int collnetEnable, int ctaPolicy, int minCtas, int maxCtas) {
    /** A field left to the library. */
    public static final int UNSET = Integer.MIN_VALUE;

    /** Blocking, everything else left to the library. */
    public static final CommConfig DEFAULT = new CommConfig(1, UNSET, UNSET, UNSET, UNSET);

    /** This config with IB SHARP (CollNet) enabled or disabled. */
    public CommConfig withCollnet(boolean enable) {
        return new CommConfig(blocking, enable ? 1 : 0, ctaPolicy, minCtas, maxCtas);
    }

    /** This config with the CTA policy {@code policy}. */
    public CommConfig withCtaPolicy(int policy) {
        return new CommConfig(blocking, collnetEnable, policy, minCtas, maxCtas);
    }

    boolean isDefault() {
        return equals(DEFAULT);
    }

    /** Refuses a config other than the default where the library predates CTAPolicy (it gets plain init). */
    void requireSupportedBy(NativeLibrary library, int rank) {
        if (library.configLayout() == 0 && !isDefault()) {
            throw CollectivesException.usage(
                    rank,
                    library.dialect.backendName() + " " + library.versionString()
                            + " takes no config with CTAPolicy (needs 2.27 or later): " + this);
        }
    }

    /** {@code CommInitRank(Config)} of {@code rank} of {@code size} with this config: the communicator's handle. */
    long initRank(NativeLibrary library, int size, byte[] uniqueId, int rank) {
        int layout = library.configLayout();
        long[] handle = new long[1];
        int rc = library.api.commInitRank(
                library.lib,
                handle,
                size,
                uniqueId,
                rank,
                layout,
                blocking,
                collnetEnable,
                ctaPolicy,
                minCtas,
                maxCtas);
        library.check(rc, rank, handle[0], layout == 0 ? "CommInitRank" : "CommInitRankConfig");
        return handle[0];
    }
}
