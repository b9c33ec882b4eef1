package dev.collectives.tools.trace;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.FlightRecord.State;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;

/**
 * A picture of the ranks' last operations, each rank a row: each kept entry a bar from its enqueue to its completion
 * (or, still pending, to the newest time any rank recorded), colored by how it ended, and per rank where it stopped and
 * the first operation the others enqueued that it never reached. Written as a PNG and as a Chrome trace (the Trace
 * Event Format, which Perfetto and chrome://tracing open): a process per communicator, a thread per rank.
 */
final class Timeline {
    /** The files {@link #write} writes into the records' directory. */
    static final String PNG = "timeline.png";

    static final String JSON = "timeline.json";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int WIDTH = 1000;
    private static final int ROW_HEIGHT = 90;
    /** The shortest bar drawn, in microseconds, so that an instant's entry stays visible. */
    private static final long SHORTEST_MICROS = 1;

    /** One row: a rank of a communicator, the {@code communicator}-th of the trace (from 0). */
    private record Row(int communicator, int rank, FlightRecord record, Optional<Entry> neverReached) {
        /** "rank 1", or where there are several communicators "shrunk #0 without rank 1, rank 1". */
        String label(boolean oneCommunicator) {
            List<String> lineage = record.lineage();
            return oneCommunicator ? "rank " + rank : lineage.get(lineage.size() - 1) + ", rank " + rank;
        }

        Optional<Entry> last() {
            return record.lastEnqueued();
        }
    }

    private final List<Row> rows = new ArrayList<>();
    /** Each communicator's title, by its number among the rows. */
    private final List<String> names;

    private final boolean oneCommunicator;
    private final long originMicros;
    private final long endMicros;

    Timeline(List<CommunicatorTrace> traces) {
        for (int c = 0; c < traces.size(); c++) {
            int communicator = c;
            Map<Integer, Entry> neverReached = traces.get(c).neverReached();
            traces.get(c)
                    .records()
                    .forEach((rank, record) ->
                            rows.add(new Row(communicator, rank, record, Optional.ofNullable(neverReached.get(rank)))));
        }
        names = traces.stream().map(CommunicatorTrace::title).toList();
        oneCommunicator = traces.size() == 1;
        List<Entry> all =
                rows.stream().flatMap(r -> r.record().entries().stream()).toList();
        originMicros = all.stream().mapToLong(Entry::enqueuedMicros).min().orElse(0);
        endMicros = all.stream()
                .mapToLong(e -> Math.max(e.enqueuedMicros(), e.completedMicros()))
                .max()
                .orElse(originMicros);
    }

    /** Writes {@value #PNG} and {@value #JSON} into {@code directory}. */
    void write(Path directory) throws IOException {
        MAPPER.writerWithDefaultPrettyPrinter()
                .writeValue(directory.resolve(JSON).toFile(), chromeTrace());
        ChartUtils.saveChartAsPNG(
                directory.resolve(PNG).toFile(), chart(), WIDTH, Math.max(240, 120 + ROW_HEIGHT * rows.size()));
    }

    /** {@code {"traceEvents": [...]}}: names, an "X" event per entry, an "i" event where each rank stopped. */
    ObjectNode chromeTrace() {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode events = root.putArray("traceEvents");
        rows.stream()
                .map(Row::communicator)
                .distinct()
                .forEach(c -> metadata(events, "process_name", c, 0).put("name", names.get(c)));
        for (Row row : rows) {
            metadata(events, "thread_name", row.communicator(), row.rank()).put("name", "rank " + row.rank());
            for (Entry entry : row.record().entries()) {
                ObjectNode event = event(events, "#" + entry.seq() + " " + entry.call(), "X", row, start(entry));
                event.put("dur", end(entry) - start(entry));
                event.putObject("args")
                        .put("seq", entry.seq())
                        .put("op", entry.signature())
                        .put("state", entry.state().label());
            }
            ObjectNode stopped = event(
                    events, stopped(row), "i", row, row.last().map(this::end).orElse(0L));
            stopped.put("s", "t");
            ObjectNode args = stopped.putObject("args");
            row.last()
                    .ifPresent(last -> args.put("lastSeq", last.seq())
                            .put("lastState", last.state().label()));
            row.neverReached()
                    .ifPresent(op -> args.put("neverReachedSeq", op.seq()).put("neverReached", op.signature()));
        }
        root.put("displayTimeUnit", "ms");
        return root;
    }

    /** "stopped in #5 allReduce (failed)", then "; never reached #6 allGather(...)" where it stopped short. */
    private static String stopped(Row row) {
        return where(row)
                + row.neverReached().map(op -> "; never reached " + op).orElse("");
    }

    /** {@link #stopped} with the calls alone, short enough for the picture. */
    private static String shortStop(Row row) {
        return where(row)
                + row.neverReached()
                        .map(op -> "; never reached #" + op.seq() + " " + op.call())
                        .orElse("");
    }

    private static String where(Row row) {
        return row.last()
                .map(e -> "stopped in #" + e.seq() + " " + e.call() + " ("
                        + e.state().label() + ")")
                .orElse("recorded nothing");
    }

    private JFreeChart chart() {
        System.setProperty("java.awt.headless", "true");
        XYIntervalSeriesCollection bars = new XYIntervalSeriesCollection();
        Map<State, XYIntervalSeries> byState = new java.util.EnumMap<>(State.class);
        for (State state : State.values()) {
            XYIntervalSeries series = new XYIntervalSeries(state.label());
            byState.put(state, series);
            bars.addSeries(series);
        }
        String[] labels = new String[rows.size()];
        for (int y = 0; y < rows.size(); y++) {
            Row row = rows.get(y);
            labels[y] = row.label(oneCommunicator);
            for (Entry entry : row.record().entries()) {
                double from = millis(start(entry));
                double to = millis(end(entry));
                byState.get(entry.state()).add(from, from, to, y, y - 0.2, y + 0.35);
            }
        }
        NumberAxis time = new NumberAxis("milliseconds since the first operation kept");
        SymbolAxis ranks = new SymbolAxis(null, labels);
        ranks.setInverted(true);
        XYBarRenderer renderer = new XYBarRenderer();
        renderer.setUseYInterval(true);
        renderer.setBarPainter(new StandardXYBarPainter());
        renderer.setShadowVisible(false);
        renderer.setDrawBarOutline(true);
        Color[] colors = {new Color(0x4c72b0), new Color(0x55a868), new Color(0xc44e52), new Color(0x8172b2)};
        for (int s = 0; s < State.values().length; s++) {
            renderer.setSeriesPaint(s, colors[s % colors.length]);
            renderer.setSeriesOutlinePaint(s, Color.WHITE);
        }
        XYPlot plot = new XYPlot(bars, time, ranks, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
        // each row's note above its bars, from the left, where it is never cut off
        for (int y = 0; y < rows.size(); y++) {
            Row row = rows.get(y);
            XYTextAnnotation note = new XYTextAnnotation(shortStop(row), 0, y - 0.48);
            note.setFont(font);
            note.setTextAnchor(TextAnchor.TOP_LEFT);
            note.setPaint(row.neverReached().isPresent() ? new Color(0xc44e52) : Color.DARK_GRAY);
            plot.addAnnotation(note);
        }
        return new JFreeChart(
                "The ranks' last operations: where each stopped, and what it never reached",
                JFreeChart.DEFAULT_TITLE_FONT,
                plot,
                true);
    }

    private static ObjectNode metadata(ArrayNode events, String name, int pid, int tid) {
        ObjectNode event = events.addObject()
                .put("name", name)
                .put("ph", "M")
                .put("pid", pid)
                .put("tid", tid);
        return event.putObject("args");
    }

    private ObjectNode event(ArrayNode events, String name, String phase, Row row, long micros) {
        return events.addObject()
                .put("name", name)
                .put("cat", "collectives")
                .put("ph", phase)
                .put("pid", row.communicator())
                .put("tid", row.rank())
                .put("ts", micros);
    }

    /** Microseconds since the first entry kept. */
    private long start(Entry entry) {
        return entry.enqueuedMicros() - originMicros;
    }

    /** Its completion, or for one still pending the newest time any rank recorded; never before its start. */
    private long end(Entry entry) {
        long end = entry.completedMicros() > 0 ? entry.completedMicros() : endMicros;
        return Math.max(end - originMicros, start(entry) + SHORTEST_MICROS);
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }
}
