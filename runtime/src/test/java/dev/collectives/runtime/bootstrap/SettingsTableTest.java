package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The guide's settings table says what the registry of settings ({@link Setting}) does, row for row. */
class SettingsTableTest {
    /** Rows of settings that other parts own (the sim backend, the flight recorder, the tools, loading libraries). */
    private static final List<String> ELSEWHERE = List.of(
            "`COLLECTIVES_SIM_",
            "`collectives.sim.",
            "`COLLECTIVES_FLIGHT_RECORDER_",
            "`collectives.nccl.",
            "`collectives.mccl.",
            "`COLLECTIVES_BACKEND`",
            "`COLLECTIVES_CHECK`");

    @Test
    void everyRegisteredSettingHasItsRowWithItsDefaultAndEveryRowOfTheseSettingsIsRegistered() throws IOException {
        Map<String, String> rows = defaultsByNames();

        Map<String, String> registered = Arrays.stream(Setting.values())
                .collect(Collectors.toMap(Setting::names, s -> s.byDefault, (a, b) -> a, LinkedHashMap::new));
        assertEquals(registered, rows);
    }

    @Test
    void theOptionsOfJoiningAreSetByTheRegisteredNames() {
        assertEquals(Setting.HEARTBEAT_TIMEOUT.variable, Settings.optionVariable(Settings.HEARTBEAT_TIMEOUT));
        assertEquals(Setting.HEARTBEAT_TIMEOUT.property, Settings.optionProperty(Settings.HEARTBEAT_TIMEOUT));
        assertEquals(Setting.JOINING.variable, Settings.optionVariable(Settings.JOINING));
        assertEquals(Setting.REPLACEMENT.variable, Settings.optionVariable(Settings.REPLACEMENT));
        assertEquals(Setting.RENDEZVOUS_SERVER.variable, Settings.optionVariable(Settings.SERVER));
        assertEquals(Setting.RENDEZVOUS_SERVER.property, Settings.optionProperty(Settings.SERVER));
        assertEquals(Setting.HANG_VERDICT.variable, Settings.optionVariable(Settings.HANG_VERDICT));
        assertEquals(Setting.HANG_VERDICT.property, Settings.optionProperty(Settings.HANG_VERDICT));
        assertEquals(Setting.JOB_PAGE.variable, Settings.optionVariable(Settings.JOB_PAGE));
        assertEquals(Setting.JOB_PAGE.property, Settings.optionProperty(Settings.JOB_PAGE));
    }

    /** The guide's rows of Collectives settings not owned elsewhere: their names cell, and their default. */
    private static Map<String, String> defaultsByNames() throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("../docs/guide.md"), StandardCharsets.UTF_8)) {
            String[] cells = line.split("\\|");
            if (cells.length < 5) {
                continue;
            }
            String names = cells[1].trim();
            boolean ours = names.startsWith("`COLLECTIVES_") || names.startsWith("`collectives.");
            if (ours && ELSEWHERE.stream().noneMatch(names::startsWith)) {
                rows.put(names, cells[3].trim());
            }
        }
        return rows;
    }
}
