package dev.collectives.processor.expr;

import java.util.HashMap;
import java.util.Map;

/**
 * Proves conditions on expressions for all values, with dims and {@code ranks} at least 1 and parameters at least
 * 0, by bringing them to {@link Poly polynomials} over variables that are at least 0. {@code (a / b) * b} cancels to
 * {@code a - a % b}; other {@code /} and {@code %} are opaque. A declared {@code ranks = N} is substituted.
 */
public final class Prover {
    private final int declaredRanks;
    /**
     * Each expression's polynomial, kept: one pipeline's conditions ask about the same sizes and offsets many times
     * (every op's range includes its buffer's offset chain). A {@link Poly} is never changed once made.
     */
    private final Map<Expr, Poly> polys = new HashMap<>();

    /** @param declaredRanks the pipeline's {@code ranks}, or 0 when not declared */
    public Prover(int declaredRanks) {
        this.declaredRanks = declaredRanks;
    }

    /** {@code value <= bound}. */
    public Verdict atMost(Expr value, Expr bound) {
        try {
            return poly(bound).minus(poly(value)).nonNegative();
        } catch (ArithmeticException overflow) {
            return Verdict.UNKNOWN;
        }
    }

    /** {@code a == b} for all values (syntactically, after simplification); false when unsure. */
    public boolean equal(Expr a, Expr b) {
        try {
            return poly(a).minus(poly(b)).isZero();
        } catch (ArithmeticException overflow) {
            return false;
        }
    }

    /** {@code value % alignment == 0}. */
    public Verdict aligned(Expr value, long alignment) {
        try {
            Poly p = poly(value);
            Long constant = p.constantValue();
            if (p.divisibleBy(alignment)) {
                return Verdict.TRUE;
            }
            return constant != null ? Verdict.FALSE : Verdict.UNKNOWN;
        } catch (ArithmeticException overflow) {
            return Verdict.UNKNOWN;
        }
    }

    /** The value of an expression without dims and parameters (ranks declared), or null. */
    public Long constant(Expr e) {
        try {
            return poly(e).constantValue();
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    Poly poly(Expr e) {
        Poly known = polys.get(e);
        if (known == null) {
            known = newPoly(e); // an overflow throws here, and nothing is kept
            polys.put(e, known);
        }
        return known;
    }

    private Poly newPoly(Expr e) {
        if (e instanceof Expr.Literal l) {
            return Poly.constant(l.value());
        }
        if (e instanceof Expr.Name n) {
            if (n.scope() == Expr.Scope.RANKS && declaredRanks > 0) {
                return Poly.constant(declaredRanks);
            }
            Poly variable = Poly.variable(n.name(), true);
            return n.scope() == Expr.Scope.PARAM ? variable : variable.plus(Poly.constant(1));
        }
        Expr.Binary b = (Expr.Binary) e;
        switch (b.op()) {
            case '+':
                return poly(b.left()).plus(poly(b.right()));
            case '-':
                return poly(b.left()).minus(poly(b.right()));
            case '*':
                Poly cancelled = cancelled(b.left(), b.right());
                if (cancelled == null) {
                    cancelled = cancelled(b.right(), b.left());
                }
                return cancelled != null ? cancelled : poly(b.left()).times(poly(b.right()));
            default:
                return divided(b);
        }
    }

    /** {@code (a / b) * b = a - a % b}, or null when {@code quotient} is not a division by {@code factor}. */
    private Poly cancelled(Expr quotient, Expr factor) {
        if (quotient instanceof Expr.Binary q && q.op() == '/' && equal(q.right(), factor)) {
            return poly(q.left()).minus(divided(new Expr.Binary('%', q.left(), q.right())));
        }
        return null;
    }

    private Poly divided(Expr.Binary b) {
        Poly left = poly(b.left());
        Poly right = poly(b.right());
        Long divisor = right.constantValue();
        Long dividend = left.constantValue();
        if (divisor != null && divisor != 0 && dividend != null) {
            return Poly.constant(b.op() == '/' ? dividend / divisor : dividend % divisor);
        }
        if (divisor != null && divisor > 0 && b.op() == '/' && left.divisibleBy(divisor)) {
            return left.dividedBy(divisor);
        }
        if (divisor != null && divisor == 1 && b.op() == '%') {
            return Poly.constant(0);
        }
        boolean nonNegative = left.nonNegative() == Verdict.TRUE
                && right.minus(Poly.constant(1)).nonNegative() == Verdict.TRUE;
        return Poly.variable(b.toString(), nonNegative);
    }
}
