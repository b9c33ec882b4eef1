package dev.collectives.examples;

import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.CollectivesException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --backend}, the option of every command that runs ranks (the runner's and the tools'), mixed into each with
 * the backend it falls back on: {@code @Mixin BackendOption backend = new BackendOption("sim")}.
 */
public final class BackendOption {
    private static final String OPTION = "--backend";

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(
            names = OPTION,
            paramLabel = "NAME",
            description = "sim (embedded, no GPU), nccl or mccl; default: $COLLECTIVES_BACKEND, else ${DEFAULT-VALUE}")
    private String name;

    /** @param fallback the backend when neither {@code --backend} nor {@code COLLECTIVES_BACKEND} names one */
    public BackendOption(String fallback) {
        this.name = fallback;
    }

    /** The backend's name: {@code --backend}'s, else {@code COLLECTIVES_BACKEND}'s, else the fallback. */
    public String name() {
        String variable = System.getenv(Backends.ENVIRONMENT_VARIABLE);
        boolean given = spec.commandLine().getParseResult().hasMatchedOption(OPTION);
        return given || variable == null || variable.isBlank() ? name : variable.trim();
    }

    /** The backend {@link #name()} names; a bad command line when it is unknown or unavailable here. */
    public Backend get() {
        try {
            return Backends.get(name());
        } catch (CollectivesException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
