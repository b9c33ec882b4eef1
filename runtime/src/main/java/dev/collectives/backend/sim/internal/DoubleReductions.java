package dev.collectives.backend.sim.internal;

import static dev.collectives.backend.sim.internal.Scratch.CHUNK;

import dev.collectives.annotation.ReduceOp;
import java.nio.ByteBuffer;

/** The Java path of {@link Kernels#reduce} for FLOAT64, computed in double. */
final class DoubleReductions {
    private DoubleReductions() {}

    static void reduce(ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = Scratch.get();
        double[] acc = scratch.doubles;
        double[] x = scratch.moreDoubles;
        double scale = 1.0 / in.length;
        for (int start = 0; start < count; start += CHUNK) {
            int n = Math.min(CHUNK, count - start);
            in[0].asDoubleBuffer().get(start, acc, 0, n);
            if (op == ReduceOp.AVG) {
                scale(acc, n, scale);
            }
            for (int r = 1; r < in.length; r++) {
                in[r].asDoubleBuffer().get(start, x, 0, n);
                if (op == ReduceOp.AVG) {
                    scale(x, n, scale);
                }
                combine(op, acc, x, n);
            }
            for (ByteBuffer destination : out) {
                destination.asDoubleBuffer().put(start, acc, 0, n);
            }
        }
    }

    private static void scale(double[] values, int n, double scalar) {
        for (int i = 0; i < n; i++) {
            values[i] *= scalar;
        }
    }

    private static void combine(ReduceOp op, double[] acc, double[] x, int n) {
        switch (op) {
            case SUM:
            case AVG:
                for (int i = 0; i < n; i++) {
                    acc[i] += x[i];
                }
                break;
            case PROD:
                for (int i = 0; i < n; i++) {
                    acc[i] *= x[i];
                }
                break;
            case MIN:
                for (int i = 0; i < n; i++) {
                    acc[i] = Double.isNaN(acc[i]) ? x[i] : Double.isNaN(x[i]) ? acc[i] : Math.min(acc[i], x[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++) {
                    acc[i] = Double.isNaN(acc[i]) ? x[i] : Double.isNaN(x[i]) ? acc[i] : Math.max(acc[i], x[i]);
                }
                break;
            default:
                throw new AssertionError(op);
        }
    }
}
