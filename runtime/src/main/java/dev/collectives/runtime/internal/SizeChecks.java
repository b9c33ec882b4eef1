package dev.collectives.runtime.internal;

import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;

/**
 * The conditions the processor could not prove on sizes and offsets known only at bind or at a step's call, checked
 * there in exact arithmetic: a few comparisons, nothing allocated unless one fails.
 */
public final class SizeChecks {
    private SizeChecks() {}

    /**
     * {@code value <= bound}; {@code condition} names where and what ("bucket(): @AllReduce #1: recv stays inside
     * `grads`: offset + n &lt;= elements").
     */
    public static void requireAtMost(
            Communicator comm, String pipeline, Rule rule, String condition, long value, long bound) {
        if (value > bound) {
            Message exceeded = rule == Rule.R7_ARENA ? Message.R7_BOUND_EXCEEDED : Message.R13_BOUND_EXCEEDED;
            throw CollectivesException.violation(exceeded, comm.rank(), pipeline, condition, value, bound);
        }
    }

    /** {@code value} is a multiple of {@code alignment}: a view's head aligned to its element size (R7). */
    public static void requireAligned(
            Communicator comm, String pipeline, Rule rule, String condition, long value, long alignment) {
        if (value % alignment != 0) {
            throw CollectivesException.violation(
                    Message.R7_NOT_ALIGNED, comm.rank(), pipeline, condition, value, alignment);
        }
    }

    /** A size or offset that overflows a long, or divides by zero, while {@code where} is checked (R13). */
    public static CollectivesException overflow(
            Communicator comm, String pipeline, String where, ArithmeticException cause) {
        return CollectivesException.violation(
                Message.R13_EXPRESSION_OVERFLOW, comm.rank(), pipeline, where, cause.getMessage());
    }

    /**
     * {@code dividend / divisor} leaves no remainder: a size divided by the ranks would otherwise drop its tail
     * silently (R13). {@code where} names the attribute, {@code division} the expression's {@code /},
     * {@code floorDiv} how to write it to round down on purpose.
     */
    public static void requireDivides(
            Communicator comm,
            String pipeline,
            String where,
            String division,
            String floorDiv,
            long dividend,
            long divisor) {
        long remainder = dividend % divisor;
        if (remainder != 0) {
            throw CollectivesException.violation(
                    Message.R13_REMAINDER,
                    comm.rank(),
                    pipeline + ": " + where,
                    division,
                    dividend,
                    divisor,
                    remainder,
                    floorDiv);
        }
    }

    /** {@code a / b}, throwing where Java's division would wrap ({@code Long.MIN_VALUE / -1}). */
    public static long divideExact(long a, long b) {
        requireNoWrap(a, b);
        return a / b;
    }

    /** {@code Math.floorDiv(a, b)}, throwing where it would wrap, as {@link #divideExact} does. */
    public static long floorDivExact(long a, long b) {
        requireNoWrap(a, b);
        return Math.floorDiv(a, b);
    }

    private static void requireNoWrap(long a, long b) {
        if (a == Long.MIN_VALUE && b == -1) {
            throw new ArithmeticException("long overflow");
        }
    }
}
