package dev.collectives.processor.writer;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import dev.collectives.processor.expr.Expr;
import java.util.function.Function;

/**
 * Expressions as Java of type {@code long}: {@link #plain} as written (where a check has already shown that nothing
 * overflows), {@link #exact} with {@code Math.addExact} and its kin, whose {@link ArithmeticException} the checks
 * report as R13. Names become what {@code names} says (fields for dims, locals for parameters), each a long.
 */
final class Expressions {
    /** Made once: JavaPoet turns a {@code Class} argument into a {@code ClassName} anew at every use. */
    private static final ClassName MATH = ClassName.get(Math.class);

    private Expressions() {}

    static CodeBlock plain(Expr e, Function<Expr.Name, CodeBlock> names) {
        if (e instanceof Expr.Literal l) {
            return CodeBlock.of("$LL", l.value());
        }
        if (e instanceof Expr.Name n) {
            return names.apply(n);
        }
        if (e instanceof Expr.FloorDiv f) {
            return CodeBlock.of("$T.floorDiv($L,$W$L)", MATH, plain(f.dividend(), names), plain(f.divisor(), names));
        }
        Expr.Binary b = (Expr.Binary) e;
        return CodeBlock.of("$L $L $L", operand(b, b.left(), false, names), b.op(), operand(b, b.right(), true, names));
    }

    private static CodeBlock operand(Expr.Binary parent, Expr e, boolean right, Function<Expr.Name, CodeBlock> names) {
        return needsParentheses(e, parent.op(), right) ? CodeBlock.of("($L)", plain(e, names)) : plain(e, names);
    }

    /** Whether {@code e}, written plain as the left or right operand of {@code op}, needs parentheses. */
    static boolean needsParentheses(Expr e, char op, boolean right) {
        return e instanceof Expr.Binary b
                && (Expr.precedence(b.op()) < Expr.precedence(op)
                        || right && Expr.precedence(b.op()) == Expr.precedence(op));
    }

    static CodeBlock exact(Expr e, Function<Expr.Name, CodeBlock> names) {
        if (e instanceof Expr.FloorDiv f) {
            return CodeBlock.of(
                    "$T.floorDivExact($L,$W$L)",
                    GenerationPart.SIZE_CHECKS,
                    exact(f.dividend(), names),
                    exact(f.divisor(), names));
        }
        if (!(e instanceof Expr.Binary b)) {
            return plain(e, names);
        }
        CodeBlock left = exact(b.left(), names);
        CodeBlock right = exact(b.right(), names);
        switch (b.op()) {
            case '+':
                return CodeBlock.of("$T.addExact($L,$W$L)", MATH, left, right);
            case '-':
                return CodeBlock.of("$T.subtractExact($L,$W$L)", MATH, left, right);
            case '*':
                return CodeBlock.of("$T.multiplyExact($L,$W$L)", MATH, left, right);
            case '/':
                return CodeBlock.of("$T.divideExact($L,$W$L)", GenerationPart.SIZE_CHECKS, left, right);
            // the other operations are calls: only a remainder on the right of a remainder needs parentheses
            default:
                return CodeBlock.of(
                        b.right() instanceof Expr.Binary r && r.op() == '%' ? "$L % ($L)" : "$L % $L", left, right);
        }
    }
}
