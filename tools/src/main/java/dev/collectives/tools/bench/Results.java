package dev.collectives.tools.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/**
 * A benchmark's rows for machines: one record per measured row, the same columns in each, written as CSV (a
 * header line, then one line per row; RFC 4180, so fields with commas, quotes or line breaks are quoted) or as JSON
 * (an array of objects). Numbers stay numbers in JSON; fractions keep 4 decimals, and a figure that could not be
 * measured (NaN) is {@code null} in JSON and {@value #MISSING} in CSV.
 */
final class Results {
    /** What CSV writes for a missing figure, and reads back as one. */
    private static final String MISSING = "null";

    private static final CSVFormat WRITTEN = CSVFormat.RFC4180
            .builder()
            .setNullString(MISSING)
            .setRecordSeparator('\n')
            .get();
    private static final CSVFormat READ = CSVFormat.RFC4180
            .builder()
            .setNullString(MISSING)
            .setHeader()
            .setSkipHeaderRecord(true)
            .get();
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

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

    /** The rows as CSV, the columns of the first row in its order; no file content when there are no rows. */
    void writeCsv(Path file) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                CSVPrinter csv = new CSVPrinter(writer, WRITTEN)) {
            if (rows.isEmpty()) {
                return;
            }
            List<String> columns = List.copyOf(rows.get(0).keySet());
            csv.printRecord(columns);
            for (Map<String, Object> row : rows) {
                csv.printRecord(columns.stream().map(column -> written(row.get(column))));
            }
        }
    }

    void writeJson(Path file) throws IOException {
        List<Map<String, Object>> written = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            Map<String, Object> values = new LinkedHashMap<>();
            row.forEach((column, value) -> values.put(column, written(value)));
            written.add(values);
        }
        JSON.writeValue(file.toFile(), written);
    }

    /** Rows read back from CSV with a header line: numbers as doubles, missing figures as null, the rest as text. */
    static Results readCsv(Path file) throws IOException {
        Results results = new Results();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
                CSVParser csv = READ.parse(reader)) {
            for (CSVRecord record : csv) {
                Map<String, Object> row = new LinkedHashMap<>();
                record.toMap().forEach((column, cell) -> row.put(column, cell == null ? null : parse(cell)));
                results.rows.add(row);
            }
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

    /** A value as written: fractions to 4 decimals, NaN and infinities as missing, the rest unchanged. */
    private static Object written(Object value) {
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isFinite(d) ? BigDecimal.valueOf(d).setScale(4, RoundingMode.HALF_EVEN) : null;
        }
        return value;
    }
}
