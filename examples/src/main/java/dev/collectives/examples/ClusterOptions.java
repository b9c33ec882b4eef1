package dev.collectives.examples;

import picocli.CommandLine.Mixin;

/**
 * Where the ranks run: {@code --backend} and {@code --ranks}, the options of every command that runs ranks (the
 * runner's and the tools'), mixed into each with its defaults: {@code @Mixin ClusterOptions cluster = new
 * ClusterOptions("sim", "4")}. A command that takes only one of them mixes in {@link BackendOption} or
 * {@link RanksOption} alone, so that each option reads the same everywhere.
 */
public final class ClusterOptions {
    @Mixin
    private BackendOption backend;

    @Mixin
    private RanksOption ranks;

    /**
     * @param backend the backend when neither {@code --backend} nor {@code COLLECTIVES_BACKEND} names one
     * @param ranks   the default rank count, or counts comma-separated
     */
    public ClusterOptions(String backend, String ranks) {
        this.backend = new BackendOption(backend);
        this.ranks = new RanksOption(ranks);
    }

    /** {@code --backend}. */
    public BackendOption backend() {
        return backend;
    }

    /** {@code --ranks}. */
    public RanksOption ranks() {
        return ranks;
    }
}
