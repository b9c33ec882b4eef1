package dev.collectives.tools.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How the benchmarks print what their tables share: the median of a series, and an enum constant as a column value. */
final class BenchFormat {
    private BenchFormat() {}

    static String median(List<Double> values, String format) {
        if (values.isEmpty()) {
            return "-";
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return String.format(Locale.ROOT, format, sorted.get(sorted.size() / 2));
    }

    static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
