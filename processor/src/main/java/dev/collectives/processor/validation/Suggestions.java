package dev.collectives.processor.validation;

import java.util.Collection;
import java.util.stream.Collectors;

/** "did you mean `sendbuff`?" for misspelt names. */
final class Suggestions {
    private Suggestions() {}

    /** A hint naming the closest accessor, or listing the accessors when none is close. */
    static String hint(String misspelt, Collection<String> candidates) {
        return hint(misspelt, candidates, "accessors");
    }

    /** A hint naming the closest candidate, or listing the candidates ({@code what}: "accessors") when none is close. */
    static String hint(String misspelt, Collection<String> candidates, String what) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(misspelt.toLowerCase(java.util.Locale.ROOT), c.toLowerCase(java.util.Locale.ROOT));
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        if (best != null && bestDistance <= Math.max(2, misspelt.length() / 3)) {
            return "did you mean `" + best + "`?";
        }
        return candidates.isEmpty()
                ? "the pipeline declares no " + what
                : what + " are " + candidates.stream().map(c -> "`" + c + "`").collect(Collectors.joining(", "));
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
