package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.runtime.bootstrap.JobState.Event;
import dev.collectives.runtime.bootstrap.JobState.Phase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobStateTest {
    /** The expected table, row by row: "EVENT->PHASE" for each event a phase allows; every other event is refused. */
    private static final Map<Phase, String> TABLE = Map.ofEntries(
            Map.entry(
                    Phase.JOINING,
                    "JOINED->RUNNING ADMITTED->AWAITING_TAKE_IN END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(
                    Phase.AWAITING_TAKE_IN,
                    "REUNION->AWAITING_TAKE_IN GROW->AWAITING_TAKE_IN REUNITED->RUNNING GROWN->RUNNING END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(
                    Phase.RUNNING,
                    "WATCH->WATCHED REUNION->AWAITING_REPLACEMENTS GROW->GROWING END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(Phase.WATCHED, "DEATH->RANK_DIED UNWATCH->RUNNING END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(Phase.RANK_DIED, "RESUME->SURVIVORS_MET END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(
                    Phase.SURVIVORS_MET,
                    "WATCH->WATCHED REUNION->AWAITING_REPLACEMENTS GROW->GROWING END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(Phase.AWAITING_REPLACEMENTS, "REUNITED->RUNNING END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(Phase.GROWING, "GROWN->RUNNING END->ENDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(Phase.ENDED, "DEATH->ENDED END->ENDED EXCLUDED->ENDED CLOSE->CLOSED"),
            Map.entry(Phase.EXCLUDED, "DEATH->EXCLUDED END->EXCLUDED EXCLUDED->EXCLUDED CLOSE->CLOSED"),
            Map.entry(Phase.CLOSED, "DEATH->CLOSED END->CLOSED EXCLUDED->CLOSED CLOSE->CLOSED"));

    /** Every (phase, event) pair: the next phase the table names, or a refusal that names the phase and the event. */
    @Test
    void everyPairOfPhaseAndEventMovesTheJobAsTheTableSays() {
        assertEquals(Phase.values().length, TABLE.size());
        for (Phase phase : Phase.values()) {
            List<String> row = List.of(TABLE.get(phase).split(" "));
            for (Event event : Event.values()) {
                String expected = row.stream()
                        .filter(e -> e.startsWith(event + "->"))
                        .map(e -> e.substring(e.indexOf("->") + 2))
                        .findFirst()
                        .orElse(null);
                JobState state = at(phase);
                if (expected != null) {
                    assertEquals(Phase.valueOf(expected), state.on(event, null), phase + " " + event);
                    assertEquals(Phase.valueOf(expected), state.phase());
                } else {
                    IllegalStateException refused =
                            assertThrows(IllegalStateException.class, () -> state.on(event, null), phase + " " + event);
                    assertEquals(
                            "rank 3: the job is " + phase.words + ", where " + event + " cannot happen",
                            refused.getMessage());
                    assertEquals(phase, state.phase());
                }
            }
        }
    }

    @Test
    void theFirstReasonTheJobEndedStaysItsNews() {
        JobState state = at(Phase.WATCHED);
        state.on(Event.END, "rank 2 ended the job: out of memory");
        state.on(Event.END, "this rank ended the job: its watch heard so");
        state.on(Event.CLOSE, null);
        assertEquals("rank 2 ended the job: out of memory", state.news());
    }

    /** A rank told it was excluded stays so when its operations then fail: its news says why it was excluded. */
    @Test
    void anExcludedRankStaysExcludedWhenItsJobThenEnds() {
        JobState state = at(Phase.WATCHED);
        state.on(Event.EXCLUDED, "rank 3 was excluded from the job: no heartbeat for 6 s");
        state.on(Event.END, "the connection ended");
        assertEquals(Phase.EXCLUDED, state.phase());
        assertEquals("rank 3 was excluded from the job: no heartbeat for 6 s", state.news());
    }

    @Test
    void everyTransitionIsAFlightRecorderEvent(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("phases.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.collectives.JobPhase");
            recording.start();
            JobState state = at(Phase.WATCHED);
            state.on(Event.DEATH, "rank 1 at /127.0.0.1:5 is gone");
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        RecordedEvent death = events.get(events.size() - 1);
        assertEquals(
                "3 watched DEATH a rank died rank 1 at /127.0.0.1:5 is gone",
                String.join(
                        " ",
                        String.valueOf(death.getInt("rank")),
                        death.getString("from"),
                        death.getString("event"),
                        death.getString("to"),
                        death.getString("detail")));
        assertEquals(3, events.size()); // JOINED, WATCH on the way to WATCHED, then DEATH
        Files.delete(file);
    }

    /** A state of rank 3 brought to {@code phase} along the table. */
    private static JobState at(Phase phase) {
        JobState state = new JobState(3);
        List<Event> path = switch (phase) {
            case JOINING -> List.of();
            case AWAITING_TAKE_IN -> List.of(Event.ADMITTED);
            case RUNNING -> List.of(Event.JOINED);
            case WATCHED -> List.of(Event.JOINED, Event.WATCH);
            case RANK_DIED -> List.of(Event.JOINED, Event.WATCH, Event.DEATH);
            case SURVIVORS_MET -> List.of(Event.JOINED, Event.WATCH, Event.DEATH, Event.RESUME);
            case AWAITING_REPLACEMENTS -> List.of(Event.JOINED, Event.REUNION);
            case GROWING -> List.of(Event.JOINED, Event.GROW);
            case ENDED -> List.of(Event.END);
            case EXCLUDED -> List.of(Event.JOINED, Event.WATCH, Event.EXCLUDED);
            case CLOSED -> List.of(Event.CLOSE);
        };
        path.forEach(event -> state.on(event, null));
        assertEquals(phase, state.phase());
        return state;
    }
}
