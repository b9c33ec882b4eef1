package dev.collectives.runtime.internal;

import dev.collectives.runtime.bootstrap.Setting;
import dev.collectives.runtime.bootstrap.Settings.Sourced;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The settings of the registry ({@link Setting}) as a process has them: a setting's system property, else its
 * variable. The device backends read theirs here, and {@code Bootstrap.describe()} shows them from here, so that what
 * a job says it uses is what the backend reads.
 */
public final class SettingValues {
    /** The device backends' settings, in the order a description gives them. */
    public static final List<Setting> DEVICE = List.of(
            Setting.GATHER_SCATTER,
            Setting.DEVICE_SYNC_TIMEOUT,
            Setting.DEVICE_BLOCKING,
            Setting.DEVICE_ABORT_TIMEOUT,
            Setting.DEVICE_ABORT_POLICY,
            Setting.DEVICE_CONNECT_AT_INIT);

    private SettingValues() {}

    /** {@code setting} in this process (its system property, else its variable); empty where neither is set. */
    public static Optional<String> ofProcess(Setting setting) {
        return of(setting, System.getenv(), System.getProperties()).map(Sourced::value);
    }

    /** {@code setting} in this process as a whole number; {@code byDefault} where it is unset or not one. */
    public static long number(Setting setting, long byDefault) {
        try {
            return ofProcess(setting).map(Long::parseLong).orElse(byDefault);
        } catch (NumberFormatException e) {
            return byDefault; // as Long.getLong reads a system property
        }
    }

    /** {@code setting} in these properties, else this environment, with where it came from. */
    public static Optional<Sourced<String>> of(
            Setting setting, Map<String, String> environment, Properties properties) {
        String property = setting.property == null ? null : properties.getProperty(setting.property);
        if (property != null && !property.isBlank()) {
            return Optional.of(new Sourced<>(property.trim(), "system property " + setting.property));
        }
        String variable = setting.variable == null ? null : environment.get(setting.variable);
        if (variable != null && !variable.isBlank()) {
            return Optional.of(new Sourced<>(variable.trim(), setting.variable));
        }
        return Optional.empty();
    }

    /**
     * "COLLECTIVES_GATHER_SCATTER native (default), collectives.device.blocking true (system property …), …": each of
     * {@code settings} by its variable (else its property), its value and where it came from.
     */
    public static String describe(List<Setting> settings, Map<String, String> environment, Properties properties) {
        return settings.stream()
                .map(setting -> (setting.variable != null ? setting.variable : setting.property) + " "
                        + of(setting, environment, properties)
                                .map(Sourced::toString)
                                .orElse(setting.byDefault.replace("`", "") + " (default)"))
                .collect(Collectors.joining(", "));
    }
}
