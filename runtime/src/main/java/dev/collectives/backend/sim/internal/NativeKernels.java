package dev.collectives.backend.sim.internal;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import java.lang.System.Logger.Level;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Name;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * The JNI binding of {@code sim_kernels.h}, built by the JavaCPP plugin: {@link Kernels}' reductions for the types
 * whose arithmetic C++ does exactly as Java does (the integers, FLOAT32, FLOAT64). Where the library does not
 * load (a platform without a build of it), or where the system property {@value #KERNELS_PROPERTY} is
 * {@code java}, {@link #reduce} declines and Kernels computes in Java, with the same results.
 */
@Platform(include = "sim_kernels.h")
final class NativeKernels {
    /** {@code -Dcollectives.sim.kernels=java} skips the native kernels: sim then computes every reduction in Java. */
    static final String KERNELS_PROPERTY = "collectives.sim.kernels";

    private static final System.Logger LOG = System.getLogger("dev.collectives.sim");
    private static final boolean LOADED = load();
    /** Collectives touching at least this many bytes are written with streaming stores: half the last-level cache. */
    static final long STREAM_MIN_BYTES = LOADED ? streamMinBytes() : Long.MAX_VALUE;

    private NativeKernels() {}

    private static boolean load() {
        if ("java".equals(System.getProperty(KERNELS_PROPERTY))) {
            LOG.log(Level.DEBUG, "sim reduces in Java: " + KERNELS_PROPERTY + "=java");
            return false;
        }
        try {
            Loader.load(NativeKernels.class);
            LOG.log(Level.DEBUG, "sim reduces with its native kernels");
            return true;
        } catch (LinkageError | RuntimeException e) {
            LOG.log(
                    Level.DEBUG,
                    "sim reduces in Java: its native kernels are not built for " + Loader.getPlatform()
                            + " (same results; the native kernels only make large reductions faster)",
                    e);
            return false;
        }
    }

    static boolean loaded() {
        return LOADED;
    }

    /**
     * Reduces as {@link Kernels#reduce(DataType, ReduceOp, long[], long[], long)} does (arguments checked there),
     * with non-temporal stores where {@code stream}. Returns false, having done nothing, where the library is not
     * loaded or does not handle the type.
     */
    static boolean reduce(DataType type, ReduceOp op, long[] sources, long[] destinations, long count, boolean stream) {
        return LOADED
                && reduce(
                                type.code(),
                                op.code(),
                                sources,
                                sources.length,
                                destinations,
                                destinations.length,
                                count,
                                stream ? 1 : 0)
                        == 0;
    }

    @Name("csk_stream_min_bytes")
    private static native long streamMinBytes();

    @Name("csk_reduce")
    private static native int reduce(
            int type, int op, long[] sources, int n, long[] destinations, int m, long count, int stream);
}
