package dev.collectives.runtime;

import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.Settings.Sourced;
import java.util.Optional;
import java.util.function.Supplier;

/** Where a {@link Bootstrap}'s settings come from when the builder leaves them: the defaults and launcher hints. */
final class BootstrapSources {
    private BootstrapSources() {}

    static Sourced<Integer> defaultDevice(Settings settings, Sourced<Integer> localRank) {
        for (String name : Settings.VISIBLE_DEVICES) {
            Optional<Sourced<String>> visible = settings.variable(name);
            if (visible.isPresent() && visible.get().value().split(",").length == 1) {
                return new Sourced<>(0, "the only device in " + name);
            }
        }
        return new Sourced<>(localRank.value(), "the local rank");
    }

    /**
     * {@code tcp://MASTER_ADDR:MASTER_PORT}; under torchrun, whose agent on the first node already serves its own
     * store at MASTER_PORT, the port after it.
     */
    static Optional<Sourced<RendezvousEndpoint>> masterAddress(Settings settings) {
        Optional<Sourced<String>> host = settings.variable(Launcher.MASTER_ADDR);
        Optional<Sourced<Integer>> port = settings.variableInt(Launcher.MASTER_PORT);
        if (host.isEmpty() || port.isEmpty()) {
            return Optional.empty();
        }
        boolean torchrun = settings.variable(Launcher.TORCHRUN_RUN_ID).isPresent();
        String source = Launcher.MASTER_ADDR + ", " + Launcher.MASTER_PORT
                + (torchrun ? " + 1 (torchrun's agent serves at " + Launcher.MASTER_PORT + ")" : "");
        return Optional.of(new Sourced<>(
                RendezvousEndpoint.tcp(host.get().value(), port.get().value() + (torchrun ? 1 : 0)), source));
    }

    static UniqueId parseUniqueId(Sourced<String> text) {
        try {
            return UniqueId.parse(text.value());
        } catch (IllegalArgumentException e) {
            throw BootstrapException.settings(-1, text.source() + " is not a unique id: " + e.getMessage());
        }
    }

    /** The builder's value, else the first candidate present; candidates are looked up lazily, in order. */
    @SafeVarargs
    static <T> Optional<Sourced<T>> first(T fromBuilder, Supplier<Optional<Sourced<T>>>... candidates) {
        if (fromBuilder != null) {
            return Optional.of(new Sourced<>(fromBuilder, "builder"));
        }
        for (Supplier<Optional<Sourced<T>>> candidate : candidates) {
            Optional<Sourced<T>> found = candidate.get();
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    static void check(boolean condition, int rank, String message) {
        if (!condition) {
            throw BootstrapException.settings(rank, message);
        }
    }
}
