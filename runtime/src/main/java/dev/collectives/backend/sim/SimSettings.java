package dev.collectives.backend.sim;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * What a joined sim job simulates, from the bootstrap's settings: {@code Bootstrap.builder().option("sim.NAME",
 * value)}, the system property {@code collectives.sim.NAME}, or the variable {@code COLLECTIVES_SIM_NAME}
 * (e.g. {@code COLLECTIVES_SIM_MTLINK_SHARP=true}), for each setting of {@link SimConfig.Builder}. The timeout
 * defaults to the bootstrap's, the ranks per node to the launcher's local size; the rest to {@link SimConfig}'s
 * defaults. Every rank must see the same settings: {@link #describe} is what the ranks agree on at join.
 */
final class SimSettings {
    /** The settings, in the order they are described. */
    private static final Setting<?>[] SETTINGS = {
        new Setting<>("timeout", null, SimConfig.Builder::timeout),
        new Setting<>("ranksPerNode", Integer::valueOf, SimConfig.Builder::ranksPerNode),
        new Setting<>("granularity", Long::valueOf, SimConfig.Builder::granularity),
        new Setting<>("libraryVersion", Function.identity(), SimConfig.Builder::libraryVersion),
        new Setting<>("mtlinkSharp", SimSettings::flag, SimConfig.Builder::mtlinkSharp),
        new Setting<>("ibSharp", SimSettings::flag, SimConfig.Builder::ibSharp),
        new Setting<>("registration", SimSettings::flag, SimConfig.Builder::registration),
        new Setting<>("symmetricWindows", SimSettings::flag, SimConfig.Builder::symmetricWindows),
        new Setting<>("windowHelpers", SimSettings::flag, SimConfig.Builder::windowHelpers),
        new Setting<>("fabricHandles", SimSettings::flag, SimConfig.Builder::fabricHandles),
    };

    private SimSettings() {}

    /**
     * The job's configuration, of {@code ranks} ranks (the rendezvous's: a process that joined a running job learns it
     * there), as this rank's settings describe it.
     */
    static SimConfig config(Bootstrap bootstrap, int ranks) {
        SimConfig.Builder builder = SimBackend.cluster()
                .ranks(ranks)
                .ranksPerNode(bootstrap.localSize().orElse(ranks))
                .timeout(bootstrap.timeout()); // by default the bootstrap's timeout bounds the collectives too
        for (Setting<?> setting : SETTINGS) {
            setting.apply(bootstrap, builder);
        }
        return builder.config();
    }

    /** The settings the ranks must agree on, compactly (the world size is agreed by the rendezvous itself). */
    static String describe(SimConfig config) {
        return "timeout " + config.timeout().toMillis() + " ms, ranksPerNode " + config.ranksPerNode()
                + ", granularity " + config.granularity() + ", " + config.capabilities();
    }

    private static boolean flag(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1", "on" -> true;
            case "false", "no", "0", "off" -> false;
            default -> throw new IllegalArgumentException("not true or false");
        };
    }

    /** One setting: its name after "sim.", how its text reads (null: a duration), and where it goes. */
    private record Setting<T>(String name, Function<String, T> parse, BiConsumer<SimConfig.Builder, T> target) {
        @SuppressWarnings("unchecked")
        void apply(Bootstrap bootstrap, SimConfig.Builder builder) {
            String option = "sim." + name;
            Optional<T> value;
            try {
                value = parse == null
                        ? (Optional<T>) bootstrap.durationOption(option).map(d -> (Duration) d)
                        : bootstrap.option(option).map(parse);
                value.ifPresent(v -> target.accept(builder, v));
            } catch (IllegalArgumentException e) {
                throw CollectivesException.usage(
                        bootstrap.rank(),
                        "the sim setting " + name + " ("
                                + Bootstrap.optionVariable(option) + " or -D" + Bootstrap.optionProperty(option)
                                + ") is '"
                                + bootstrap.option(option).orElse("") + "': " + e.getMessage());
            }
        }
    }
}
