package dev.collectives.runtime.bootstrap;

/** A job of one process: nobody to meet. */
final class SingleRankRendezvous extends Exchange {
    SingleRankRendezvous() {
        super(0, 1, "a single process", Settings.DEFAULT_TIMEOUT);
        joined();
    }

    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        return value;
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        return new byte[][] {value};
    }

    @Override
    protected void doAbort(String reason) {
        // nobody to tell
    }

    @Override
    protected void doClose() {}
}
