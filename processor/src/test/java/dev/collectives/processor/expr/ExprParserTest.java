package dev.collectives.processor.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The expression grammar: precedence, names by scope, and errors that say where (column from 1). */
class ExprParserTest {
    static final Map<String, Expr.Scope> SCOPE = Map.of(
            "elements", Expr.Scope.DIM, "ranks", Expr.Scope.RANKS, "offset", Expr.Scope.PARAM, "n", Expr.Scope.PARAM);

    static Expr parse(String text) throws ExprException {
        return ExprParser.parse(text, SCOPE);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "1 + 2 * 3 | 1 + 2 * 3",
                "(1 + 2) * 3 | (1 + 2) * 3",
                "elements/ranks*ranks | elements / ranks * ranks",
                "elements - (offset - n) | elements - (offset - n)",
                "elements - offset - n | elements - offset - n",
                "elements / (ranks * 2) | elements / (ranks * 2)",
                "  ( ( n ) )  | n",
                "elements % ranks | elements % ranks",
                "floorDiv( elements+1 ,ranks ) * 2 | floorDiv(elements + 1, ranks) * 2"
            })
    void writesBackWithOnlyTheParenthesesItNeeds(String text, String written) throws ExprException {
        assertEquals(written, parse(text).toString());
    }

    @Test
    void divisionsAreListedInnerFirstAndFloorDivIsNotOne() throws ExprException {
        assertEquals(
                "[elements / ranks, elements / ranks / n]",
                parse("floorDiv(offset, 2) + elements / ranks / n").divisions().toString());
    }

    @Test
    void namesKeepTheirScope() throws ExprException {
        Expr e = parse("offset + elements * ranks");
        assertEquals(3, e.names().size());
        assertTrue(e.usesParameters());
        assertTrue(parse("7 * 6").isConstant());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "7 * 6 | 0 | true",
                "7 * 6 | 4 | true",
                "1024 / ranks | 4 | true",
                "1024 / ranks | 0 | false",
                "elements / ranks | 4 | false",
                "offset + 1 | 4 | false"
            })
    void knownAtCompileTimeWhenLiteralOrNamingOnlyDeclaredRanks(String text, int declaredRanks, boolean known)
            throws ExprException {
        assertEquals(known, parse(text).isKnownWith(declaredRanks));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "n + | 4 | the expression ends where a number, a name or `(` should follow",
                "(n + 1 | 7 | missing `)`",
                "floorDiv(n) | 11 | expected `,` but found `)`",
                "floorDiv(n, 2 | 14 | missing `)`",
                "n + 1) | 6 | unbalanced `)`",
                "n $ 2 | 3 | unexpected `$`",
                "'' | 1 | the expression is empty",
                "2 n | 3 | unexpected `n`",
                "99999999999999999999 | 1 | the literal 99999999999999999999 does not fit a long"
            })
    void syntaxErrorsGiveTheColumn(String text, int column, String message) {
        ExprException e = assertThrows(ExprException.class, () -> parse(text));
        assertEquals(column, e.column());
        assertEquals(message + " at column " + column, e.getMessage());
        assertNull(e.unknownName());
    }

    @Test
    void unknownNamesAreNamedWithTheirColumn() {
        ExprException e = assertThrows(ExprException.class, () -> parse("offset + elemnts"));
        assertEquals("elemnts", e.unknownName());
        assertEquals(10, e.column());
        assertEquals("unknown name `elemnts` at column 10", e.getMessage());
    }
}
