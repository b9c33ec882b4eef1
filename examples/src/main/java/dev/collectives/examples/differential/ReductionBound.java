package dev.collectives.examples.differential;

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
        double epsilon = Tolerance.epsilon(type);
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
        return largest == 0 ? 0 : largest + ranks * Tolerance.smallest(type);
    }
}
