package dev.collectives.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.BasicStroke;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.junit.jupiter.api.Test;

/** The chart's title and legend say what it draws: a dashed native line only where the rows have one. */
class BusbwChartTest {
    private static Results rows(String... impls) {
        Results results = new Results();
        for (String impl : impls) {
            for (long bytes = 8; bytes <= 64; bytes *= 2) {
                results.add(
                        "op",
                        "allreduce",
                        "mode",
                        "none",
                        "placement",
                        "out-of-place",
                        "impl",
                        impl,
                        "ranks",
                        2,
                        "bytes",
                        bytes,
                        "algbw",
                        0.1,
                        "busbw",
                        0.1);
            }
        }
        return results;
    }

    private static List<LegendItem> legend(JFreeChart chart) {
        LegendItemCollection items = chart.getXYPlot().getLegendItems();
        List<LegendItem> list = new ArrayList<>();
        for (int i = 0; i < items.getItemCount(); i++) {
            list.add(items.get(i));
        }
        return list;
    }

    @Test
    void simRowsGetAJavaLineAndATitleThatSaysThereIsNoNativeOne() {
        JFreeChart chart = BusbwChart.chart(rows("java"), "allreduce", "sim, 2 rank(s)");

        String title = chart.getTitle().getText();
        assertEquals("allreduce, sim, 2 rank(s): out of place, Java; these rows have no native baseline", title);
        assertFalse(title.contains("dashed"), title);
        assertEquals(
                List.of("none java"),
                legend(chart).stream().map(LegendItem::getLabel).toList());
        assertFalse(((BasicStroke) legend(chart).get(0).getLineStroke()).getDashArray() != null, "a solid line");
    }

    @Test
    void nativeRowsGetADashedLineBesideJavasAndTheTitleSaysSo() {
        JFreeChart chart = BusbwChart.chart(rows("java", "native"), "allreduce", null);

        assertEquals(
                "allreduce: out of place, Java (solid) beside native (dashed)",
                chart.getTitle().getText());
        List<LegendItem> legend = legend(chart);
        assertEquals(
                List.of("none java", "none native"),
                legend.stream().map(LegendItem::getLabel).toList());
        assertTrue(((BasicStroke) legend.get(1).getLineStroke()).getDashArray() != null, "native dashed");
    }
}
