package dev.collectives.processor.expr;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * An integer expression of a {@code ...Expr} attribute: literals, names (dims, step parameters, {@code ranks}),
 * {@code + - * / %} and {@code floorDiv(a, b)}. Its {@code toString()} writes it back with only the parentheses it
 * needs. A {@code /} must leave no remainder (checked where it is not proved); {@code floorDiv} rounds down.
 */
public sealed interface Expr {
    /** What a name stands for: a {@code @Dim} (bound at bind, at least 1), a step parameter (at least 0), or ranks. */
    enum Scope {
        DIM,
        PARAM,
        RANKS
    }

    record Literal(long value) implements Expr {
        @Override
        public String toString() {
            return Long.toString(value);
        }
    }

    record Name(String name, Scope scope) implements Expr {
        @Override
        public String toString() {
            return name;
        }
    }

    record Binary(char op, Expr left, Expr right) implements Expr {
        @Override
        public String toString() {
            return operand(left, false) + " " + op + " " + operand(right, true);
        }

        private String operand(Expr e, boolean right) {
            boolean parenthesize = e instanceof Binary b
                    && (precedence(b.op) < precedence(op) || right && precedence(b.op) == precedence(op));
            return parenthesize ? "(" + e + ")" : e.toString();
        }
    }

    /** {@code floorDiv(dividend, divisor)}: the division that drops a remainder on purpose, as Math.floorDiv. */
    record FloorDiv(Expr dividend, Expr divisor) implements Expr {
        /** The name it is written with. */
        public static final String NAME = "floorDiv";

        @Override
        public String toString() {
            return NAME + "(" + dividend + ", " + divisor + ")";
        }
    }

    static int precedence(char op) {
        return op == '+' || op == '-' ? 1 : 2;
    }

    static Expr literal(long value) {
        return new Literal(value);
    }

    /** {@code a + b}, without a 0 term, and two literals added where the sum fits a long. */
    static Expr plus(Expr a, Expr b) {
        if (a instanceof Literal x && b instanceof Literal y) {
            try {
                return literal(Math.addExact(x.value(), y.value()));
            } catch (ArithmeticException overflow) {
                return new Binary('+', a, b);
            }
        }
        return a instanceof Literal l && l.value() == 0
                ? b
                : b instanceof Literal l && l.value() == 0 ? a : new Binary('+', a, b);
    }

    /** {@code a * b}, without a factor 1, and two literals multiplied where the product fits a long. */
    static Expr times(Expr a, Expr b) {
        if (a instanceof Literal x && b instanceof Literal y) {
            try {
                return literal(Math.multiplyExact(x.value(), y.value()));
            } catch (ArithmeticException overflow) {
                return new Binary('*', a, b);
            }
        }
        return a instanceof Literal l && l.value() == 1
                ? b
                : b instanceof Literal l && l.value() == 1 ? a : new Binary('*', a, b);
    }

    /** The names it uses, in order of first use. */
    default Set<Name> names() {
        Set<Name> names = new LinkedHashSet<>();
        collect(this, names);
        return names;
    }

    private static void collect(Expr e, Set<Name> names) {
        if (e instanceof Name n) {
            names.add(n);
        }
        e.operands().forEach(o -> collect(o, names));
    }

    /** The expressions it computes on: none for a literal or a name. */
    default List<Expr> operands() {
        if (this instanceof Binary b) {
            return List.of(b.left(), b.right());
        }
        return this instanceof FloorDiv f ? List.of(f.dividend(), f.divisor()) : List.of();
    }

    /** Whether one of its names passes {@code test}; unlike {@link #names()}, it makes no set. */
    default boolean anyName(Predicate<Name> test) {
        if (this instanceof Name n) {
            return test.test(n);
        }
        return operands().stream().anyMatch(o -> o.anyName(test));
    }

    /** Its {@code /} divisions, each after those in its operands: the order in which a check meets them. */
    default List<Binary> divisions() {
        List<Binary> divisions = new ArrayList<>();
        operands().forEach(o -> divisions.addAll(o.divisions()));
        if (this instanceof Binary b && b.op() == '/') {
            divisions.add(b);
        }
        return divisions;
    }

    /** Whether it names a step parameter: then it is known only at each call. */
    default boolean usesParameters() {
        return anyName(n -> n.scope() == Scope.PARAM);
    }

    /** Whether it is a literal expression, known at compile time. */
    default boolean isConstant() {
        return !anyName(n -> true);
    }

    /**
     * Whether it is known at compile time in a pipeline of {@code declaredRanks} ranks (0: undeclared): a literal, or
     * naming only {@code ranks} where they are declared.
     */
    default boolean isKnownWith(int declaredRanks) {
        return !anyName(n -> n.scope() != Scope.RANKS || declaredRanks == 0);
    }
}
