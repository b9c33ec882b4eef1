package dev.collectives.runtime;

import java.util.OptionalLong;

/**
 * A registered window ({@code ncclWindow_t}/{@code mcclWindow_t}, R12). Closing deregisters it, collectively.
 * Idempotent.
 */
public interface RegisteredWindow extends AutoCloseable {
    /** The buffer the window was registered on. */
    DeviceBuffer buffer();

    /** Whether it is a symmetric window (the same offset on every rank). */
    boolean symmetric();

    /**
     * {@code ncclWinGetUserPtr}/{@code mcclWinGetUserPtr} (R10): the address the window was registered on; empty where
     * the library lacks the window helpers.
     */
    OptionalLong userPointer();

    /**
     * {@code ncclGetLsaDevicePointer}/{@code mcclGetLsaDevicePointer} (R10): the address of this window, {@code offset}
     * bytes in, as rank {@code lsaRank} of the local team sees it; empty where the helpers are missing.
     */
    OptionalLong lsaDevicePointer(long offset, int lsaRank);

    @Override
    void close();
}
