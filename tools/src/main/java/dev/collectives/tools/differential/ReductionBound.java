package dev.collectives.tools.differential;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import java.util.Map;
import java.util.Set;

/**
 * The tolerance of a corpus pipeline's floating-point elements at more than two ranks, where NCCL's ring or tree adds
 * in another order than sim, which adds rank 0's value, then rank 1's, and so on, rounding after each step.
 * <p>An element is reduced at most once per call (the ops of a step own apart ranges, and every call starts from
 * fresh inputs), over {@code n} inputs drawn from ±[0.5, 2). Whatever the order, each of the {@code n - 1} steps
 * rounds once, by at most half an ulp of a partial sum no larger than {@code S = Σ|x_i|}; so each side lies within
 * {@code (n - 1)·(ε/2)·S} of the exact sum, and the two within {@code (n - 1)·ε·S}, ε being the type's epsilon. AVG
 * first rounds every {@code x_i/n}, adding {@code ε/2·|x_i|/n} per input. The bound used, per op:
 * <ul>
 *   <li>SUM: {@code n·ε·S} with {@code S ≤ 2n};</li>
 *   <li>AVG: {@code n·ε·S} with {@code S = Σ|x_i/n| ≤ 2};</li>
 *   <li>PROD: relative, {@code n·ε·max(|a|, |b|)}: each rounding of a product is relative to it;</li>
 *   <li>MIN, MAX: 0, they choose an input and round nothing;</li>
 * </ul>
 * plus {@code n} times the type's smallest subnormal, for results that land among the subnormals, where rounding is
 * absolute. An element of a type takes the largest bound of that type's reductions in the pipeline.
 *
 * @param ranks       the number of ranks, {@code n}
 * @param reductions  the pipeline's reductions of each floating-point type
 */
record ReductionBound(int ranks, Map<DataType, Set<ReduceOp>> reductions) implements Tolerance {
    /** The largest magnitude of an input. */
    static final double LARGEST_INPUT = 2;

    @Override
    public double bound(DataType type, double a, double b) {
        Set<ReduceOp> ops = reductions.get(type);
        if (ranks <= 2 || ops == null) {
            return 0;
        }
        double epsilon = epsilon(type);
        double largest = 0;
        for (ReduceOp op : ops) {
            double bound = switch (op) {
                case SUM -> ranks * epsilon * ranks * LARGEST_INPUT;
                case AVG -> ranks * epsilon * LARGEST_INPUT;
                case PROD -> ranks * epsilon * Math.max(Math.abs(a), Math.abs(b));
                case MIN, MAX -> 0;
            };
            largest = Math.max(largest, bound);
        }
        return largest == 0 ? 0 : largest + ranks * smallest(type);
    }

    /** The distance from 1 to the next larger value of a floating {@code type}: 2^-mantissa bits. */
    private static double epsilon(DataType type) {
        return switch (type) {
            case FLOAT64 -> 0x1p-52;
            case FLOAT32 -> 0x1p-23;
            case FLOAT16 -> 0x1p-10;
            case BFLOAT16 -> 0x1p-7;
            case FP8_E4M3 -> 0x1p-3;
            case FP8_E5M2 -> 0x1p-2;
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }

    /** The smallest positive (subnormal) value of a floating {@code type}: the spacing of results near zero. */
    private static double smallest(DataType type) {
        return switch (type) {
            case FLOAT64 -> Double.MIN_VALUE;
            case FLOAT32 -> Float.MIN_VALUE;
            case FLOAT16 -> 0x1p-24;
            case BFLOAT16 -> 0x1p-133;
            case FP8_E4M3 -> 0x1p-9;
            case FP8_E5M2 -> 0x1p-16;
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }
}
