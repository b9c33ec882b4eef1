package dev.collectives.runtime;

import dev.collectives.annotation.Registration;
import dev.collectives.runtime.internal.Lifecycle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** The JFR recovery events a body commits, recorded, dumped and read back as a user's tool would. */
public final class RecoveryEvents {
    private RecoveryEvents() {}

    /** Every {@code dev.collectives.Recovery} event committed while {@code body} ran, in order. */
    public static List<RecordedEvent> during(Runnable body) {
        try {
            Path file = Files.createTempFile("recovery", ".jfr");
            try (Recording recording = new Recording()) {
                recording.enable("dev.collectives.Recovery");
                recording.start();
                body.run();
                recording.stop();
                recording.dump(file);
            }
            List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals("dev.collectives.Recovery"))
                    .toList();
            Files.delete(file);
            return events;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The event's kind, outcome, rank, sizes and whether it was bound, in one line, for one assertion. */
    public static String summary(RecordedEvent event) {
        return event.getString("kind") + " " + event.getString("outcome") + " on rank " + event.getInt("rank") + ": "
                + event.getInt("ranks") + " -> " + event.getInt("newRanks") + " ranks, excluded "
                + event.getString("excluded") + (event.getBoolean("bound") ? ", bound" : ", not bound");
    }

    /** Binds a pipeline that holds nothing on {@code comm}, as generated code does. */
    public static void bindOn(Communicator comm) {
        Lifecycle.open(
                comm,
                "p.Gradients",
                Registration.NONE,
                new Pipeline() {
                    @Override
                    public String describe() {
                        return "nothing";
                    }

                    @Override
                    public void close() {}
                },
                () -> {});
    }
}
