package dev.collectives.processor.expr;

/** An expression that does not parse, or names something unknown: the message says what, at which column (from 1). */
public final class ExprException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int column;
    private final String unknownName;

    ExprException(String message, int column, String unknownName) {
        super(message + " at column " + column);
        this.column = column;
        this.unknownName = unknownName;
    }

    public int column() {
        return column;
    }

    /** The name that is neither a dim, a parameter of the step nor {@code ranks}; null for a syntax error. */
    public String unknownName() {
        return unknownName;
    }
}
