package dev.collectives.processor.expr;

import java.util.Map;

/**
 * Parses {@code expr := term (('+'|'-') term)*; term := factor (('*'|'/'|'%') factor)*; factor := literal | name |
 * 'floorDiv(' expr ',' expr ')' | '(' expr ')'}, names resolved against the scope given (dims, the step's
 * parameters, {@code ranks}).
 */
public final class ExprParser {
    private final String text;
    private final Map<String, Expr.Scope> scope;
    private int position;

    private ExprParser(String text, Map<String, Expr.Scope> scope) {
        this.text = text;
        this.scope = scope;
    }

    /** @param scope every name the expression may use, and what it stands for */
    public static Expr parse(String text, Map<String, Expr.Scope> scope) throws ExprException {
        ExprParser parser = new ExprParser(text, scope);
        parser.skipSpaces();
        if (parser.atEnd()) {
            throw new ExprException("the expression is empty", 1, null);
        }
        Expr e = parser.sum();
        if (!parser.atEnd()) {
            throw parser.error(parser.peek() == ')' ? "unbalanced `)`" : "unexpected `" + parser.peek() + "`");
        }
        return e;
    }

    private Expr sum() throws ExprException {
        Expr e = product();
        while (peek() == '+' || peek() == '-') {
            char op = next();
            e = new Expr.Binary(op, e, product());
        }
        return e;
    }

    private Expr product() throws ExprException {
        Expr e = factor();
        while (peek() == '*' || peek() == '/' || peek() == '%') {
            char op = next();
            e = new Expr.Binary(op, e, factor());
        }
        return e;
    }

    private Expr factor() throws ExprException {
        char c = peek();
        int start = position;
        if (c == '(') {
            next();
            Expr e = sum();
            expect(')');
            return e;
        }
        if (Character.isDigit(c)) {
            while (!atEnd() && Character.isDigit(text.charAt(position))) {
                position++;
            }
            String digits = text.substring(start, position);
            skipSpaces();
            try {
                return new Expr.Literal(Long.parseLong(digits));
            } catch (NumberFormatException e) {
                throw new ExprException("the literal " + digits + " does not fit a long", start + 1, null);
            }
        }
        if (Character.isJavaIdentifierStart(c)) {
            while (!atEnd() && Character.isJavaIdentifierPart(text.charAt(position))) {
                position++;
            }
            String name = text.substring(start, position);
            skipSpaces();
            if (name.equals(Expr.FloorDiv.NAME) && peek() == '(') {
                next();
                Expr dividend = sum();
                expect(',');
                Expr divisor = sum();
                expect(')');
                return new Expr.FloorDiv(dividend, divisor);
            }
            Expr.Scope s = scope.get(name);
            if (s == null) {
                throw new ExprException("unknown name `" + name + "`", start + 1, name);
            }
            return new Expr.Name(name, s);
        }
        throw error(
                atEnd()
                        ? "the expression ends where a number, a name or `(` should follow"
                        : "unexpected `" + c + "` where a number, a name or `(` should follow");
    }

    private void expect(char c) throws ExprException {
        if (peek() != c) {
            throw error(atEnd() ? "missing `" + c + "`" : "expected `" + c + "` but found `" + peek() + "`");
        }
        next();
    }

    private ExprException error(String message) {
        return new ExprException(message, position + 1, null);
    }

    private boolean atEnd() {
        return position >= text.length();
    }

    private char peek() {
        return atEnd() ? '\0' : text.charAt(position);
    }

    private char next() {
        char c = text.charAt(position++);
        skipSpaces();
        return c;
    }

    private void skipSpaces() {
        while (!atEnd() && Character.isWhitespace(text.charAt(position))) {
            position++;
        }
    }
}
