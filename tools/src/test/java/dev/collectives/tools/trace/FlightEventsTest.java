package dev.collectives.tools.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.tools.faults.CollectiveGraphFaultPipeline;
import dev.collectives.tools.faults.CollectiveLocalFaultPipeline;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR events of pipelines bound and stepped on sim, recorded with the settings the runtime ships. */
class FlightEventsTest {
    @TempDir
    Path out;

    @Test
    void bindCaptureRegistrationAndStepEventsAreRecordedWithTheirPipelineStepRankAndBackend() throws Exception {
        List<RecordedEvent> events = recorded(() -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
                cluster.run(ctx -> {
                    try (var graph = CollectiveGraphFaultPipeline.bind(ctx.comm(), ctx.stream());
                            var local = CollectiveLocalFaultPipeline.bind(ctx.comm(), ctx.stream())) {
                        graph.step(16);
                        local.step(16);
                        ctx.stream().synchronize();
                    }
                });
            }
        });

        List<RecordedEvent> binds = named(events, "dev.collectives.Bind");
        assertEquals(4, binds.size(), binds.toString());
        RecordedEvent graphBind = binds.stream()
                .filter(e -> e.getString("registration").equals("GRAPH") && e.getInt("rank") == 1)
                .findFirst()
                .orElseThrow();
        assertEquals("dev.collectives.tools.faults.GraphFaultPipeline", graphBind.getString("pipeline"));
        assertEquals("sim", graphBind.getString("backend"));

        List<RecordedEvent> captures = named(events, "dev.collectives.GraphCapture");
        assertEquals(2, captures.size(), captures.toString());
        assertEquals("step", captures.get(0).getString("step"));
        assertEquals(1, captures.get(0).getInt("calls"));

        List<RecordedEvent> steps = named(events, "dev.collectives.Step");
        assertEquals(4, steps.size(), steps.toString());
        assertEquals(2, steps.stream().filter(e -> e.getBoolean("graph")).count(), steps.toString());
        assertTrue(steps.stream().allMatch(e -> e.getString("step").equals("step")), steps.toString());

        List<RecordedEvent> registrations = named(events, "dev.collectives.Registration");
        assertTrue(registrations.size() >= 2, registrations.toString());
        assertEquals("{nccl,mccl}CommRegister", registrations.get(0).getString("path"));
        assertTrue(events.stream()
                .allMatch(e -> e.getEventType().getCategoryNames().equals(List.of("Collectives"))));
    }

    @Test
    void theShippedSettingsEnableEveryEventOfTheCategory() throws Exception {
        Configuration shipped = shippedSettings();
        for (String event : List.of("Bind", "GraphCapture", "Registration", "Step", "Failure", "Abort", "Recovery")) {
            assertEquals("true", shipped.getSettings().get("dev.collectives." + event + "#enabled"), event);
        }
    }

    private List<RecordedEvent> recorded(Runnable body) throws Exception {
        Path file = out.resolve("run.jfr");
        try (Recording recording = new Recording(shippedSettings())) {
            recording.start();
            body.run();
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.collectives."))
                .collect(Collectors.toList());
    }

    private static Configuration shippedSettings() throws IOException, java.text.ParseException {
        try (InputStream jfc = FlightEventsTest.class.getResourceAsStream("/dev/collectives/runtime/collectives.jfc")) {
            assertNotNull(jfc, "the runtime ships dev/collectives/runtime/collectives.jfc");
            return Configuration.create(new java.io.InputStreamReader(jfc, java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals(name))
                .collect(Collectors.toList());
    }
}
