package dev.collectives.tools.differential;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A size or an offset of a corpus declaration: a sum of integer multiples of terms, each 1, {@code ranks}, a dim, a
 * step parameter, or a dim times {@code ranks} ("3 + 2 * ranks + d0 * ranks"). Written into the source as an
 * {@code ...Expr} attribute (or a plain number when constant), and evaluated by the driver at a rank count.
 */
record Expr(SortedMap<String, Long> terms) {
    private static final String ONE = "";
    private static final String RANKS = "ranks";
    private static final String TIMES = " * ";

    Expr {
        TreeMap<String, Long> nonZero = new TreeMap<>();
        terms.forEach((term, coefficient) -> {
            if (coefficient != 0) {
                nonZero.put(term, coefficient);
            }
        });
        terms = nonZero;
    }

    static Expr constant(long value) {
        return new Expr(new TreeMap<>(Map.of(ONE, value)));
    }

    static Expr symbol(String name) {
        return new Expr(new TreeMap<>(Map.of(name, 1L)));
    }

    Expr plus(Expr other) {
        TreeMap<String, Long> sum = new TreeMap<>(terms);
        other.terms.forEach((term, coefficient) -> sum.merge(term, coefficient, Long::sum));
        return new Expr(sum);
    }

    Expr plus(long value) {
        return plus(constant(value));
    }

    Expr times(long factor) {
        TreeMap<String, Long> product = new TreeMap<>();
        terms.forEach((term, coefficient) -> product.put(term, coefficient * factor));
        return new Expr(product);
    }

    /** This times {@code ranks}; its terms must not hold {@code ranks} already. */
    Expr timesRanks() {
        TreeMap<String, Long> product = new TreeMap<>();
        terms.forEach((term, coefficient) -> {
            if (term.contains(RANKS)) {
                throw new IllegalArgumentException(source() + " holds ranks already");
            }
            product.put(term.isEmpty() ? RANKS : term + TIMES + RANKS, coefficient);
        });
        return new Expr(product);
    }

    /** Every coefficient rounded up to a multiple of {@code multiple}: at least this, and a multiple of it. */
    Expr roundedUp(long multiple) {
        TreeMap<String, Long> rounded = new TreeMap<>();
        terms.forEach((term, coefficient) ->
                rounded.put(term, Math.floorDiv(coefficient + multiple - 1, multiple) * multiple));
        return new Expr(rounded);
    }

    boolean isConstant() {
        return terms.keySet().stream().allMatch(String::isEmpty);
    }

    long constant() {
        return terms.getOrDefault(ONE, 0L);
    }

    /** The value with {@code symbols} giving {@code ranks}, the dims and the step's parameters. */
    long value(Map<String, Long> symbols) {
        long total = 0;
        for (Map.Entry<String, Long> t : terms.entrySet()) {
            long product = t.getValue();
            if (!t.getKey().isEmpty()) {
                for (String factor : t.getKey().split(Pattern.quote(TIMES))) {
                    Long value = symbols.get(factor);
                    if (value == null) {
                        throw new IllegalArgumentException("no value for " + factor + " in " + source());
                    }
                    product = Math.multiplyExact(product, value);
                }
            }
            total = Math.addExact(total, product);
        }
        return total;
    }

    /** As the declaration writes it: "3 + 2 * ranks + d0". */
    String source() {
        StringBuilder text = new StringBuilder();
        terms.forEach((term, coefficient) -> {
            text.append(text.length() == 0 ? (coefficient < 0 ? "-" : "") : coefficient < 0 ? " - " : " + ");
            long magnitude = Math.abs(coefficient);
            text.append(term.isEmpty() ? String.valueOf(magnitude) : magnitude == 1 ? term : magnitude + TIMES + term);
        });
        return text.length() == 0 ? "0" : text.toString();
    }

    @Override
    public String toString() {
        return source();
    }
}
