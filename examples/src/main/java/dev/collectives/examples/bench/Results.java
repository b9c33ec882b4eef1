package dev.collectives.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * A benchmark's rows for machines: one record per measured row, the same columns in each, written as CSV (a
 * header line, then one line per row) or as JSON (an array of objects). Numbers stay numbers in JSON.
 */
final class Results {
    private final List<Map<String, Object>> rows = new ArrayList<>();

    /** Adds a row of alternating column names and values. */
    void add(Object... namesAndValues) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            row.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        rows.add(row);
    }

    List<Map<String, Object>> rows() {
        return rows;
    }

    void writeCsv(Path file) throws IOException {
        StringBuilder text = new StringBuilder();
        if (!rows.isEmpty()) {
            text.append(String.join(",", rows.get(0).keySet())).append('\n');
        }
        for (Map<String, Object> row : rows) {
            StringJoiner line = new StringJoiner(",");
            row.values().forEach(v -> line.add(format(v)));
            text.append(line).append('\n');
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    void writeJson(Path file) throws IOException {
        StringJoiner array = new StringJoiner(",\n  ", "[\n  ", "\n]\n");
        for (Map<String, Object> row : rows) {
            StringJoiner object = new StringJoiner(", ", "{", "}");
            row.forEach((name, v) -> object.add('"' + name + "\": " + (v instanceof Number ? format(v)
                    : '"' + String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"") + '"')));
            array.add(object.toString());
        }
        Files.writeString(file, rows.isEmpty() ? "[]\n" : array.toString(), StandardCharsets.UTF_8);
    }

    /** Rows read back from a CSV file this class wrote: numbers as doubles, the rest as strings. */
    static Results readCsv(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Results results = new Results();
        String[] names = lines.isEmpty() ? new String[0] : lines.get(0).split(",");
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] cells = line.split(",", -1);
            Object[] row = new Object[2 * names.length];
            for (int i = 0; i < names.length; i++) {
                row[2 * i] = names[i];
                row[2 * i + 1] = parse(cells[i]);
            }
            results.add(row);
        }
        return results;
    }

    private static Object parse(String cell) {
        try {
            return Double.parseDouble(cell);
        } catch (NumberFormatException notANumber) {
            return cell;
        }
    }

    private static String format(Object value) {
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isFinite(d) ? String.format(Locale.ROOT, "%.4f", d) : "null";
        }
        return String.valueOf(value);
    }
}
