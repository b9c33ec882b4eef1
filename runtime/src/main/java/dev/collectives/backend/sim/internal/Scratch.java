package dev.collectives.backend.sim.internal;

/** Per-thread work arrays of the Java reductions, so concurrent calls on disjoint ranges share nothing. */
final class Scratch {
    /** Elements per pass: the scratch arrays of one thread stay in the core's caches. */
    static final int CHUNK = 2048;

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    final float[] floats = new float[CHUNK];
    final float[] moreFloats = new float[CHUNK];
    final double[] doubles = new double[CHUNK];
    final double[] moreDoubles = new double[CHUNK];
    final long[] longs = new long[CHUNK];
    final long[] moreLongs = new long[CHUNK];
    final int[] ints = new int[CHUNK];
    final int[] moreInts = new int[CHUNK];
    final short[] shorts = new short[CHUNK];
    final byte[] bytes = new byte[CHUNK];

    private Scratch() {}

    /** The calling thread's arrays. */
    static Scratch get() {
        return SCRATCH.get();
    }
}
