package dev.collectives.examples.mistakes;

import java.util.List;

/** The mistakes {@code --mistakes} runs, in order. */
public final class Mistakes {
    private Mistakes() {}

    public static List<Mistake> all() {
        return List.of(new DifferentPipelines(), new ExternalOffsets(), new LegacyVariableMissing());
    }
}
