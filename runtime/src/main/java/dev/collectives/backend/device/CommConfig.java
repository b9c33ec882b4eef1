package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.bootstrap.Setting;
import dev.collectives.runtime.internal.SettingValues;
import java.time.Duration;

/**
 * The communicator config ({@code ncclConfig_t}/{@code mcclConfig_t}) fields this project sets; {@link #UNSET}
 * leaves a field to the library. It is passed through {@code CommInitRankConfig} laid out for the library
 * version found (2.27 or 2.28 layout); libraries older than 2.27 get plain {@code CommInitRank} (blocking), and only
 * the default config.
 *
 * <p>Non-blocking (the default): every call that may wait on other ranks (init, split, shrink, finalize,
 * registration, windows, collectives, {@code GroupEnd}) returns at once and is polled, parking, up to a deadline,
 * and {@code abort()} ends any such wait. Blocking: those calls block in the library until they return, and an
 * abort cannot end them; pick it only where the library's non-blocking mode costs more than it saves.
 *
 * @param blocking      0 non-blocking (the default), 1 blocking
 * @param collnetEnable 1 enables IB SHARP (CollNet) on the communicator (R8)
 * @param ctaPolicy     0 default, 1 efficiency, 2 zero (2.28)
 */
public record CommConfig(int blocking, int collnetEnable, int ctaPolicy, int minCtas, int maxCtas) {
    /** A field left to the library. */
    public static final int UNSET = Integer.MIN_VALUE;

    /** {@code true} makes {@link #DEFAULT} blocking; read once, when this class loads. */
    public static final String BLOCKING_PROPERTY = Setting.DEVICE_BLOCKING.property;

    /** Non-blocking (blocking where {@code collectives.device.blocking} is {@code true}), everything else left to the library. */
    public static final CommConfig DEFAULT = new CommConfig(
            SettingValues.ofProcess(Setting.DEVICE_BLOCKING)
                            .map(Boolean::parseBoolean)
                            .orElse(false)
                    ? 1
                    : 0,
            UNSET,
            UNSET,
            UNSET,
            UNSET);

    /** This config, blocking or not. */
    public CommConfig withBlocking(boolean block) {
        return new CommConfig(block ? 1 : 0, collnetEnable, ctaPolicy, minCtas, maxCtas);
    }

    /** This config with IB SHARP (CollNet) enabled or disabled. */
    public CommConfig withCollnet(boolean enable) {
        return new CommConfig(blocking, enable ? 1 : 0, ctaPolicy, minCtas, maxCtas);
    }

    /** This config with the CTA policy {@code policy}. */
    public CommConfig withCtaPolicy(int policy) {
        return new CommConfig(blocking, collnetEnable, policy, minCtas, maxCtas);
    }

    /** Whether every field but {@code blocking} is left to the library. */
    boolean leavesAllToTheLibrary() {
        return withBlocking(false).equals(DEFAULT.withBlocking(false));
    }

    /**
     * Refuses a config that sets more than {@code blocking} where the library predates CTAPolicy (it gets plain
     * init, which blocks).
     */
    void requireSupportedBy(NativeLibrary library, int rank) {
        if (library.configLayout() == 0 && !leavesAllToTheLibrary()) {
            throw CollectivesException.usage(
                    rank,
                    library.dialect.backendName() + " " + library.versionString()
                            + " takes no config with CTAPolicy (needs 2.27 or later): " + this);
        }
    }

    /**
     * {@code CommInitRank(Config)} of {@code rank} of {@code size} with this config: the communicator's handle, once
     * formed; every rank must join it within {@code timeout}, else it is aborted and this throws naming the rank, the
     * size and the timeout.
     */
    long initRank(NativeLibrary library, int size, byte[] uniqueId, int rank, Waits waits, Duration timeout) {
        return initRank(library, size, uniqueId, rank, waits, timeout, () -> {});
    }

    /**
     * As {@link #initRank(NativeLibrary, int, byte[], int, Waits, Duration)}, where {@code stillWanted} throws when the
     * wait for the other ranks must end at once (one of them died); a blocking init returns only once formed, so it
     * cannot be ended this way.
     */
    long initRank(
            NativeLibrary library,
            int size,
            byte[] uniqueId,
            int rank,
            Waits waits,
            Duration timeout,
            Runnable stillWanted) {
        int layout = library.configLayout();
        try (NativeSlot handle = new NativeSlot()) {
            int rc = library.api.commInitRank(
                    library.lib,
                    handle.pointer(),
                    size,
                    uniqueId,
                    rank,
                    layout,
                    blocking,
                    collnetEnable,
                    ctaPolicy,
                    minCtas,
                    maxCtas);
            String call = layout == 0 ? "CommInitRank" : "CommInitRankConfig";
            return handle.formed(library, rc, call, rank, size, waits, timeout, stillWanted);
        }
    }
}
