package dev.collectives.tools.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The chart of one op of a {@link DeviceBenchmark} run: busbw against size (log scale), one line per mode, Java
 * solid and the native baseline dashed in the same colour beside it; out-of-place rows. Its title names only the
 * lines drawn: rows of the sim backend, which has no native baseline, get no dashed line and the title says so. At
 * one rank, where busbw is zero by definition (no bus), it draws algbw and says so. Needs the {@code java.desktop}
 * module (headless is enough).
 */
final class BusbwChart {
    private static final Color[] COLOURS = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0x9467bd),
        new Color(0xff7f0e),
        new Color(0x8c564b)
    };
    private static final BasicStroke SOLID = new BasicStroke(2f);
    private static final BasicStroke DASHED =
            new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);

    private BusbwChart() {}

    /**
     * Writes a PNG of the out-of-place rows of {@code op} (columns op, mode, impl, placement, ranks, bytes, busbw,
     * algbw), titled with {@code context} (what the rows are, or null) before what the lines are.
     */
    static void write(Results results, String op, String context, Path file) throws IOException {
        ChartUtils.saveChartAsPNG(file.toFile(), chart(results, op, context), 900, 540);
    }

    static JFreeChart chart(Results results, String op, String context) {
        System.setProperty("java.awt.headless", "true");
        require(results, "op", "mode", "impl", "placement", "ranks", "bytes");
        boolean oneRank = results.rows().stream().allMatch(r -> ((Number) r.get("ranks")).intValue() == 1);
        String metric = oneRank ? "algbw" : "busbw";
        require(results, metric);
        Map<String, XYSeries> lines = new LinkedHashMap<>();
        for (Map<String, Object> row : results.rows()) {
            if (!"out-of-place".equals(row.get("placement")) || !op.equals(row.get("op"))) {
                continue;
            }
            String name = row.get("mode") + " " + row.get("impl");
            lines.computeIfAbsent(name, n -> new XYSeries(n, true, false))
                    .add(((Number) row.get("bytes")).doubleValue(), ((Number) row.get(metric)).doubleValue());
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("no out-of-place rows of " + op + " to draw");
        }
        XYSeriesCollection data = new XYSeriesCollection();
        lines.values().forEach(data::addSeries);
        LogAxis size = new LogAxis("size (bytes)");
        size.setBase(2);
        size.setSmallestValue(1);
        size.setTickUnit(new NumberTickUnit(2));
        size.setNumberFormatOverride(new SizeFormat());
        NumberAxis busbw = new NumberAxis(metric + " (GB/s)" + (oneRank ? ", one rank: busbw is 0 by definition" : ""));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        List<String> names = List.copyOf(lines.keySet());
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String pair = name.substring(0, name.lastIndexOf(' '));
            int colour = (int) names.stream()
                    .map(n -> n.substring(0, n.lastIndexOf(' ')))
                    .distinct()
                    .takeWhile(p -> !p.equals(pair))
                    .count();
            renderer.setSeriesPaint(i, COLOURS[colour % COLOURS.length]);
            renderer.setSeriesStroke(i, name.endsWith(" native") ? DASHED : SOLID);
        }
        XYPlot plot = new XYPlot(data, size, busbw, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(
                op + (context == null ? "" : ", " + context) + ": out of place, " + caption(names),
                JFreeChart.DEFAULT_TITLE_FONT,
                plot,
                true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** Fails, naming it, on a column that the rows lack: the rows of another benchmark, say. */
    private static void require(Results results, String... columns) {
        for (String column : columns) {
            if (!results.rows().isEmpty() && !results.rows().get(0).containsKey(column)) {
                throw new IllegalArgumentException("the rows have no column '" + column + "': a chart is drawn from "
                        + "the rows that the device benchmark writes (its --csv)");
            }
        }
    }

    /** What the lines named {@code "<mode> <impl>"} are: Java solid, native dashed, or that no native one is drawn. */
    private static String caption(List<String> names) {
        boolean java = names.stream().anyMatch(n -> !n.endsWith(" native"));
        boolean nat = names.stream().anyMatch(n -> n.endsWith(" native"));
        if (java && nat) {
            return "Java (solid) beside native (dashed)";
        }
        return java ? "Java; these rows have no native baseline" : "native (dashed); these rows have no Java line";
    }

    /** Axis labels in binary units: 8 B, 32 KiB, 1 GiB. */
    private static final class SizeFormat extends NumberFormat {
        private static final long serialVersionUID = 1L;
        private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

        @Override
        public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
            return format(Math.round(number), to, pos);
        }

        @Override
        public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
            int unit = 0;
            long value = number;
            while (value >= 1024 && value % 1024 == 0 && unit < UNITS.length - 1) {
                value /= 1024;
                unit++;
            }
            return to.append(value).append(' ').append(UNITS[unit]);
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            throw new UnsupportedOperationException("axis labels are not parsed");
        }
    }
}
