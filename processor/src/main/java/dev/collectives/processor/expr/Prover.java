package dev.collectives.processor.expr;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongBinaryOperator;

/**
 * Proves conditions on expressions for all values, with dims and {@code ranks} at least 1 and parameters at least
 * 0, by bringing them to {@link Poly polynomials} over variables that are at least 0. {@code (a / b) * b} cancels to
 * {@code a - a % b}; other {@code /}, {@code %} and {@code floorDiv} are opaque unless their operands are constants
 * or the divisor divides every coefficient. A declared {@code ranks = N} is substituted. Where the polynomials
 * overflow a long, a condition on constants is still decided, in exact arithmetic: a constant bound is never left
 * to bind, whatever its size.
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
            BigInteger exactValue = exact(value);
            BigInteger exactBound = exact(bound);
            if (exactValue == null || exactBound == null) {
                return Verdict.UNKNOWN;
            }
            return exactValue.compareTo(exactBound) <= 0 ? Verdict.TRUE : Verdict.FALSE;
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
            BigInteger exactValue = exact(value);
            if (exactValue == null) {
                return Verdict.UNKNOWN;
            }
            return exactValue.mod(BigInteger.valueOf(alignment)).signum() == 0 ? Verdict.TRUE : Verdict.FALSE;
        }
    }

    /**
     * The exact value of an expression without dims and parameters ({@code ranks} declared), however large; null
     * where it names one, or divides by 0. {@code /} and {@code %} truncate as Java's do; floorDiv rounds down.
     */
    public BigInteger exact(Expr e) {
        if (e instanceof Expr.Literal l) {
            return BigInteger.valueOf(l.value());
        }
        if (e instanceof Expr.Name n) {
            return n.scope() == Expr.Scope.RANKS && declaredRanks > 0 ? BigInteger.valueOf(declaredRanks) : null;
        }
        Expr left = e instanceof Expr.FloorDiv f ? f.dividend() : ((Expr.Binary) e).left();
        Expr right = e instanceof Expr.FloorDiv f ? f.divisor() : ((Expr.Binary) e).right();
        BigInteger x = exact(left);
        BigInteger y = exact(right);
        if (x == null || y == null) {
            return null;
        }
        char op = e instanceof Expr.Binary b ? b.op() : 'f';
        if ((op == '/' || op == '%' || op == 'f') && y.signum() == 0) {
            return null;
        }
        return switch (op) {
            case '+' -> x.add(y);
            case '-' -> x.subtract(y);
            case '*' -> x.multiply(y);
            case '/' -> x.divide(y);
            case '%' -> x.remainder(y);
            default -> {
                BigInteger[] qr = x.divideAndRemainder(y);
                yield qr[1].signum() != 0 && qr[1].signum() != y.signum() ? qr[0].subtract(BigInteger.ONE) : qr[0];
            }
        };
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
        if (e instanceof Expr.FloorDiv f) {
            return divided(f, f.dividend(), f.divisor(), Math::floorDiv);
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
            case '/':
                return divided(b, b.left(), b.right(), (x, y) -> x / y);
            default:
                return remainder(b);
        }
    }

    /** {@code (a / b) * b = a - a % b}, or null when {@code quotient} is not a division by {@code factor}. */
    private Poly cancelled(Expr quotient, Expr factor) {
        if (quotient instanceof Expr.Binary q && q.op() == '/' && equal(q.right(), factor)) {
            return poly(q.left()).minus(remainder(new Expr.Binary('%', q.left(), q.right())));
        }
        return null;
    }

    /**
     * {@code quotient} of {@code dividend} by {@code divisor}: computed by {@code constants} when both are constants,
     * the coefficients divided when they all divide exactly (the same for {@code /} and floorDiv), else opaque.
     */
    private Poly divided(Expr quotient, Expr dividend, Expr divisor, LongBinaryOperator constants) {
        Poly left = poly(dividend);
        Long by = poly(divisor).constantValue();
        if (by != null && by != 0 && left.constantValue() != null) {
            return Poly.constant(constants.applyAsLong(left.constantValue(), by));
        }
        if (by != null && by > 0 && left.divisibleBy(by)) {
            return left.dividedBy(by);
        }
        return opaque(quotient, dividend, divisor);
    }

    private Poly remainder(Expr.Binary b) {
        Long dividend = poly(b.left()).constantValue();
        Long divisor = poly(b.right()).constantValue();
        if (divisor != null && divisor != 0 && dividend != null) {
            return Poly.constant(dividend % divisor);
        }
        return divisor != null && divisor == 1 ? Poly.constant(0) : opaque(b, b.left(), b.right());
    }

    /** A variable named by its text, at least 0 where the dividend is and the divisor is at least 1. */
    private Poly opaque(Expr e, Expr dividend, Expr divisor) {
        boolean nonNegative = poly(dividend).nonNegative() == Verdict.TRUE
                && poly(divisor).minus(Poly.constant(1)).nonNegative() == Verdict.TRUE;
        return Poly.variable(e.toString(), nonNegative);
    }

    /**
     * {@code divisor} divides {@code dividend} with no remainder: proved where the divisor is a constant (then as
     * {@link #aligned}) or a factor of the dividend, false only where both are constants.
     */
    public Verdict divides(Expr dividend, Expr divisor) {
        Long by = constant(divisor);
        if (by != null) {
            return aligned(dividend, by);
        }
        boolean factor = dividend instanceof Expr.Binary b
                && b.op() == '*'
                && (equal(b.left(), divisor) || equal(b.right(), divisor));
        return factor ? Verdict.TRUE : Verdict.UNKNOWN;
    }
}
