package dev.collectives.processor.expr;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * An integer expression of a {@code ...Expr} attribute: literals, names (dims, step parameters, {@code ranks}) and
 * {@code + - * / %}. Its {@code toString()} writes it back with only the parentheses it needs.
 */
public sealed interface Expr {
    /** What a name stands for: a {@code @Dim} (bound at bind, at least 1), a step parameter (at least 0), or ranks. */
    enum Scope { DIM, PARAM, RANKS }

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
        return a instanceof Literal l && l.value() == 0 ? b : b instanceof Literal l && l.value() == 0 ? a
                : new Binary('+', a, b);
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
        return a instanceof Literal l && l.value() == 1 ? b : b instanceof Literal l && l.value() == 1 ? a
                : new Binary('*', a, b);
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
        } else if (e instanceof Binary b) {
            collect(b.left(), names);
            collect(b.right(), names);
        }
    }

    /** Whether one of its names passes {@code test}; unlike {@link #names()}, it makes no set. */
    default boolean anyName(Predicate<Name> test) {
        if (this instanceof Name n) {
            return test.test(n);
        }
        return this instanceof Binary b && (b.left().anyName(test) || b.right().anyName(test));
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
