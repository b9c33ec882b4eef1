package dev.collectives.backend.sim;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Name;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * The JNI binding of {@code sim_kernels.h}, built by the JavaCPP plugin: {@link Kernels}' reductions for the types
 * whose arithmetic C++ does exactly as Java does (the integers, FLOAT32, FLOAT64). Where the library does not
 * load (a platform without a build of it), {@link #reduce} declines and Kernels computes in Java.
 */
@Platform(include = "sim_kernels.h")
public final class NativeKernels {
    private static final boolean LOADED = load();
    /** Collectives touching at least this many bytes are written with streaming stores: half the last-level cache. */
    static final long STREAM_MIN_BYTES = LOADED ? streamMinBytes() : Long.MAX_VALUE;

    private NativeKernels() {
    }

    private static boolean load() {
        try {
            Loader.load(NativeKernels.class);
            return true;
        } catch (LinkageError | RuntimeException e) {
            Logger.getLogger(NativeKernels.class.getName())
                    .log(Level.FINE, "no native sim kernels on this platform; reducing in Java", e);
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
    static boolean reduce(DataType type, ReduceOp op, long[] sources, long[] destinations, long count,
                          boolean stream) {
        return LOADED && reduce(type.code(), op.code(), sources, sources.length, destinations, destinations.length,
                count, stream ? 1 : 0) == 0;
    }

    @Name("csk_stream_min_bytes") private static native long streamMinBytes();

    @Name("csk_reduce") private static native int reduce(int type, int op, long[] sources, int n,
                                                         long[] destinations, int m, long count, int stream);
}
