package dev.collectives.backend.device;

import dev.collectives.runtime.Communicator;

/**
 * The device backend on {@link ScriptedNativeApi}, for tests outside this package that run the same calls on every
 * backend without a GPU.
 */
public final class ScriptedDevice {
    private ScriptedDevice() {}

    /** Rank 0 of a one-rank communicator over a fresh scripted library that answers every call with success. */
    public static Communicator oneRank() {
        return new ScriptedNativeApi().communicator(0, 1);
    }

    /** Rank {@code rank} of a communicator of {@code size} ranks over a fresh scripted library of its own. */
    public static Communicator rank(int rank, int size) {
        return new ScriptedNativeApi().communicator(rank, size);
    }
}
