package dev.collectives.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rows as JSON and CSV that other tools read back as written, whatever the text in them. */
class ResultsTest {
    private static final String AWKWARD = "a \"quoted\", comma\\backslash\ttab\nline\u0001control";

    @TempDir
    Path dir;

    private static Results rows() {
        Results results = new Results();
        results.add("name", AWKWARD, "ranks", 2, "busbw", 12.345678, "java_us", Double.NaN);
        results.add("name", "plain", "ranks", 4, "busbw", 0.5, "java_us", 1.25);
        return results;
    }

    @Test
    void jsonOfAnyTextParsesBackToTheSameValues() throws Exception {
        Path json = dir.resolve("rows.json");
        rows().writeJson(json);

        JsonNode array = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, array.size());
        assertEquals(AWKWARD, array.get(0).get("name").asText());
        assertTrue(array.get(0).get("ranks").isIntegralNumber());
        assertEquals(12.3457, array.get(0).get("busbw").asDouble(), "4 decimals");
        assertTrue(array.get(0).get("java_us").isNull(), "a figure not measured is null");
        assertEquals(1.25, array.get(1).get("java_us").asDouble());
    }

    @Test
    void csvOfAnyTextReadsBackToTheSameValues() throws Exception {
        Path csv = dir.resolve("rows.csv");
        rows().writeCsv(csv);

        Results back = Results.readCsv(csv);
        assertEquals(2, back.rows().size());
        Map<String, Object> first = back.rows().get(0);
        assertEquals(AWKWARD, first.get("name"));
        assertEquals(2.0, first.get("ranks"));
        assertEquals(12.3457, first.get("busbw"));
        assertTrue(first.containsKey("java_us") && first.get("java_us") == null, first.toString());
        assertEquals(
                Map.of("name", "plain", "ranks", 4.0, "busbw", 0.5, "java_us", 1.25),
                back.rows().get(1));
        assertTrue(
                Files.readString(csv).startsWith("name,ranks,busbw,java_us\n\"a \"\"quoted\"\", comma"),
                Files.readString(csv));
    }
}
