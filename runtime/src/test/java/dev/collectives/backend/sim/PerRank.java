package dev.collectives.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.LocalCluster;
import java.time.Duration;

/** Test helpers that run a body on every rank and look at what each rank threw. */
public final class PerRank {
    /** A timeout short enough for tests that wait for ranks that never come. */
    public static final Duration SHORT = Duration.ofMillis(300);

    private PerRank() {}

    /** Runs {@code body} on every rank and returns what each threw (null where it returned normally). */
    public static Throwable[] failures(LocalCluster cluster, LocalCluster.RankBody body) {
        Throwable[] failures = new Throwable[cluster.size()];
        cluster.run(ctx -> {
            try {
                body.run(ctx);
            } catch (Throwable t) {
                failures[ctx.rank()] = t;
            }
        });
        return failures;
    }

    /**
     * Every rank failed with a {@link CollectivesException} for {@code rule}: its message starts with the rule's
     * tag, names the rank, and contains each fragment. Returns rank 0's message.
     */
    public static String assertEveryRank(Throwable[] failures, Rule rule, String... fragments) {
        for (int r = 0; r < failures.length; r++) {
            CollectivesException e = assertCollectivesException(failures, r);
            assertEquals(rule, e.rule(), "rank " + r + ": " + e.getMessage());
            assertTrue(e.getMessage().startsWith(rule.tag() + " rank " + r + ": "), e.getMessage());
            assertContains(e.getMessage(), fragments);
        }
        return failures[0].getMessage();
    }

    /** Every rank failed with a library error (not a rule) whose message contains each fragment. */
    public static void assertEveryRankError(Throwable[] failures, String... fragments) {
        for (int r = 0; r < failures.length; r++) {
            CollectivesException e = assertCollectivesException(failures, r);
            assertEquals(null, e.rule(), e.getMessage());
            assertTrue(e.getMessage().contains("rank " + r + ": "), e.getMessage());
            assertContains(e.getMessage(), fragments);
        }
    }

    public static CollectivesException assertCollectivesException(Throwable[] failures, int rank) {
        assertNotNull(failures[rank], "rank " + rank + " did not fail");
        return assertInstanceOf(
                CollectivesException.class, failures[rank], () -> "rank " + rank + " failed with " + failures[rank]);
    }

    public static void assertContains(String message, String... fragments) {
        for (String f : fragments) {
            assertTrue(message.contains(f), () -> "expected '" + f + "' in: " + message);
        }
    }
}
