package dev.collectives.processor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.processor.validation.Tag;
import dev.collectives.rules.Rule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** docs/rules.md has a section for every rule and DSL tag, under the anchor the messages link to. */
class RulesPageTest {
    private static Set<String> anchors() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("../docs/rules.md"), StandardCharsets.UTF_8);
        return lines.stream()
                .filter(l -> l.startsWith("## "))
                .map(l -> "docs/rules.md#"
                        + l.substring(3).trim().toLowerCase(Locale.ROOT).replace(' ', '-'))
                .collect(Collectors.toSet());
    }

    @Test
    void everyRuleHasItsSection() throws IOException {
        Set<String> anchors = anchors();
        for (Rule rule : Rule.values()) {
            assertTrue(anchors.contains(rule.anchor()), rule.anchor() + " missing from " + anchors);
        }
    }

    @Test
    void everyDslTagHasItsSection() throws IOException {
        Set<String> anchors = anchors();
        for (Tag tag : Tag.DSL) {
            assertTrue(anchors.contains(tag.anchor()), tag.anchor() + " missing from " + anchors);
        }
    }
}
