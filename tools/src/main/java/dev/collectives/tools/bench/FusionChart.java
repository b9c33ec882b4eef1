package dev.collectives.tools.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The chart of a {@link FusionBenchmark} run: time per step against the ops per step k, both on log scales, for one
 * n, a line per mode and side (the calls by hand, the pipeline planned and as written, the native rows). Needs the
 * {@code java.desktop} module (headless is enough).
 */
final class FusionChart {
    private FusionChart() {}

    /**
     * Writes a PNG of the rows of {@code n} (columns backend, mode, k, n, impl, time_us), titled with {@code context}
     * (what the rows are, or null).
     */
    static void write(Results results, long n, String context, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<String, XYSeries> lines = new LinkedHashMap<>();
        boolean simulated = false;
        for (Map<String, Object> row : results.rows()) {
            if (((Number) row.get("n")).longValue() != n) {
                continue;
            }
            simulated |= "sim".equals(row.get("backend"));
            String name = row.get("mode") + " " + row.get("impl");
            lines.computeIfAbsent(name, key -> new XYSeries(key, true, false))
                    .add(((Number) row.get("k")).doubleValue(), ((Number) row.get("time_us")).doubleValue());
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("no rows of n = " + n + " to draw");
        }
        XYSeriesCollection data = new XYSeriesCollection();
        lines.values().forEach(data::addSeries);
        LogAxis k = new LogAxis("allreduces per step (k)");
        k.setBase(2);
        k.setTickUnit(new NumberTickUnit(2));
        k.setNumberFormatOverride(new DecimalFormat("0"));
        LogAxis time = new LogAxis("time per step (us)");
        time.setTickUnit(new NumberTickUnit(1));
        time.setNumberFormatOverride(new DecimalFormat("0.##"));
        XYPlot plot = new XYPlot(data, k, time, new XYLineAndShapeRenderer(true, true));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(
                "k allreduces of " + n + " floats per step" + (context == null ? "" : ", " + context)
                        + (simulated ? " (sim: not performance figures)" : ""),
                JFreeChart.DEFAULT_TITLE_FONT,
                plot,
                true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 540);
    }
}
