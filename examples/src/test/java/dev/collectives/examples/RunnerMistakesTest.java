package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.examples.mistakes.Mistakes;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code --mistakes} case through the runner on sim: each must be caught, with its rule, on every rank count
 * it applies to. The timeouts only keep a hang from stalling the build: a mistake that is not caught fast fails.
 */
@Timeout(120)
class RunnerMistakesTest {
    static Stream<Arguments> mistakesAndRanks() {
        return Mistakes.all().stream()
                .flatMap(mistake -> Stream.of(1, 2, 4, 8).map(ranks -> Arguments.of(mistake.name(), ranks)));
    }

    @ParameterizedTest(name = "{0} at {1} rank(s)")
    @MethodSource("mistakesAndRanks")
    void mistakeIsCaughtWithItsRule(String name, int ranks) {
        Mistake mistake = Mistakes.all().stream()
                .filter(m -> m.name().equals(name))
                .findFirst()
                .orElseThrow();
        RunnerOutput run =
                RunnerOutput.of("--backend", "sim", "--ranks", String.valueOf(ranks), "--mistakes", "--example", name);

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().contains("== mistake " + name + ": " + mistake.summary()), run.text());
        assertTrue(run.text().contains("expects: " + mistake.rule().tag()), run.text());
        if (ranks < mistake.minRanks()) {
            assertTrue(run.text().contains("SKIPPED: needs at least " + mistake.minRanks() + " ranks"), run.text());
        } else {
            // "rank 0 failed: [tag] ...", "ranks 0-3 failed: [tag] ..." once for ranks that failed alike, or a
            // line per reason, the first failure's first
            String caught = ranks == 1
                    ? "caught: rank 0 failed: " + mistake.rule().tag()
                    : "caught: ranks " + (ranks == 2 ? "0, 1" : "0-" + (ranks - 1)) + " failed";
            assertTrue(run.text().contains(caught), run.text());
            assertTrue(
                    run.text()
                            .matches("(?s).*\ncaught: [^\n]*(failed: |\n(rank|ranks) [^\n]*: )"
                                    + Pattern.quote(mistake.rule().tag()) + ".*"),
                    run.text());
            assertTrue(
                    run.text().contains("ranks that reported " + mistake.rule().tag() + ": "), run.text());
            assertTrue(run.text().contains("mistakes: 1 passed, 0 skipped, 0 failed"), run.text());
        }
    }

    @Test
    void r14DifferentPipelinesNamesWhatDiffers() {
        RunnerOutput run =
                RunnerOutput.of("--backend", "sim", "--ranks", "2", "--mistakes", "--example", "different-pipelines");

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().contains("[R14 SHAPE]"), run.text());
        assertTrue(run.text().contains("SeedLocalRegistration") && run.text().contains("SeedArena"), run.text());
    }

    @Test
    void r2ExternalOffsetsNamesBothOffsets() {
        RunnerOutput run =
                RunnerOutput.of("--backend", "sim", "--ranks", "2", "--mistakes", "--example", "external-offsets");

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().contains("[R2 OFFSET]"), run.text());
        assertTrue(run.text().contains("input"), run.text());
    }

    @Test
    void r9LegacyVariableMissingNamesTheVariable() {
        RunnerOutput run = RunnerOutput.of(
                "--backend", "sim", "--ranks", "2", "--mistakes", "--example", "legacy-variable-missing");

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(run.text().contains("[R9 LEGACY]"), run.text());
        assertTrue(run.text().contains("MCCL_LEGACY_MUSA_REGISTER"), run.text());
    }

    @Test
    void allMistakesAtTheDefaultRankCount() {
        RunnerOutput run = RunnerOutput.of("--backend", "sim", "--mistakes");

        assertEquals(Runner.PASSED, run.status(), run.text());
        assertTrue(
                run.text().contains("mistakes: " + Mistakes.all().size() + " passed, 0 skipped, 0 failed"), run.text());
    }
}
