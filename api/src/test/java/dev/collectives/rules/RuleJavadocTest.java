package dev.collectives.rules;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each {@link Rule} constant's Javadoc holds its rule as the rules page states it, so that an IDE shows a user the
 * rule a diagnostic names without the project's docs at hand.
 */
class RuleJavadocTest {
    @ParameterizedTest
    @EnumSource(Rule.class)
    void javadocHoldsTheRulesText(Rule rule) throws IOException {
        String page = Files.readString(Path.of("../docs/rules.md"), StandardCharsets.UTF_8);
        Matcher section = Pattern.compile(
                        "\n## " + Pattern.quote(rule.id() + " " + rule.shortName()) + "\n\n(.+?)\n\n", Pattern.DOTALL)
                .matcher(page);
        assertTrue(section.find(), rule + " has no section on the rules page");
        String statement = normalize(section.group(1)
                .replaceAll("`([^`]*)`", "{@code $1}")
                .replaceAll("\\*([A-Za-z/ ()]+)\\*", "<em>$1</em>"));

        String source =
                Files.readString(Path.of("src/main/java/dev/collectives/rules/Rule.java"), StandardCharsets.UTF_8);
        Matcher javadoc = Pattern.compile("/\\*\\*((?:(?!\\*/).)*)\\*/\\s*" + rule.name() + "\\(", Pattern.DOTALL)
                .matcher(source);
        assertTrue(javadoc.find(), rule + " has no Javadoc");
        String text = normalize(javadoc.group(1).replaceAll("\n\\s*\\*", "\n"));
        assertTrue(text.contains(statement), rule + ": the Javadoc\n" + text + "\ndoes not hold\n" + statement);
    }

    private static String normalize(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }
}
