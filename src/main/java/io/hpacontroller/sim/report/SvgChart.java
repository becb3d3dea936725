package io.hpacontroller.sim.report;

import io.hpacontroller.sim.Series;
import io.hpacontroller.sim.SimulationResult;

import java.util.Locale;

/**
 * The report's chart, as inline SVG: a top panel with the demand and each HPA's capacity, a bottom panel
 * with each HPA's replicas, a shared time axis, labelled axes and a legend. Every series has a stable id
 * ({@code series-demand}, {@code series-capacity-N}, {@code series-replicas-N}) and class, and names its HPA
 * in {@code data-hpa}. Each spec's replicas line has its own dash pattern and marks its replica changes with its
 * own marker shape, so that identical lines stay distinguishable.
 */
final class SvgChart {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    static final String DEMAND_COLOR = "#555555";
    /**
     * Each spec's replicas line gets its own dash pattern and marker (at its replica changes), so that specs whose
     * lines are identical stay distinguishable: a later line is drawn over an earlier one, which shows in its gaps.
     */
    private static final String[] DASHES = {null, "12 5", "5 3", "14 4 4 4"};
    private static final String[] MARKERS = {"circle", "square", "triangle", "diamond"};

    private static final int TOP_Y = 20;
    private static final int TOP_H = 230;
    private static final int GAP = 60;
    private static final int BOTTOM_H = 180;
    private static final int X_AXIS_SPACE = 50;
    private static final int LEGEND_LINE = 20;
    /** Replica changes marked on a replicas line; past that the markers would only clutter it. */
    private static final int MARKED_CHANGES = 200;
    private static final int CAPACITY_DASH = 6;

    private final SimulationResult result;
    private final SvgPlot plot;
    private final StringBuilder svg;

    private SvgChart(SimulationResult result) {
        this.result = result;
        this.plot = new SvgPlot(result.scenario().durationMillis());
        this.svg = plot.svg;
    }

    static String render(SimulationResult result) {
        return new SvgChart(result).draw();
    }

    /**
     * The capacity lines' dashes: with several specs, each spec's dash falls into the others' gaps (by its offset), so
     * identical capacity lines alternate their colours rather than hide each other.
     */
    private String capacityDash() {
        int n = result.capacity().size();
        return CAPACITY_DASH + " " + (n <= 1 ? 4 : CAPACITY_DASH * (n - 1));
    }

    /** The colour of the spec at {@code i}: its lines, markers and swatches. */
    static String color(int i) {
        return COLORS[i % COLORS.length];
    }

    private static String dash(int i) {
        return DASHES[i % DASHES.length];
    }

    private static String marker(int i) {
        return MARKERS[i % MARKERS.length];
    }

    private String draw() {
        int n = result.summaries().size();
        int legendRows = 1 + n;
        int bottomY = TOP_Y + TOP_H + GAP;
        int height = bottomY + BOTTOM_H + X_AXIS_SPACE + legendRows * LEGEND_LINE + 10;
        svg.append(String.format(Locale.ROOT,
                "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"demand, capacity and replicas over time\">%n",
                SvgPlot.WIDTH, height, SvgPlot.WIDTH, height));
        svg.append("<style>.axis line,.axis path{stroke:#333}.axis line.grid{stroke:#e3e3e3;stroke-width:1}.tick text{font:11px sans-serif;fill:#333}"
                + ".axis-label{font:12px sans-serif;fill:#111}.legend-item text{font:12px sans-serif;fill:#111}"
                + ".series{fill:none;stroke-linejoin:round}.capacity{stroke-opacity:0.5}</style>\n");

        String unitLabel = result.scenario().load().unit();
        double demandPeak = result.demand().max();
        double demandMax = demandPeak;
        for (Series c : result.capacity()) {
            demandMax = Math.max(demandMax, Math.min(c.max(), demandPeak * 5 + 1)); // a huge capacity does not flatten the demand
        }
        demandMax = SvgPlot.niceCeiling(demandMax <= 0 ? 1 : demandMax * 1.05);
        double replicaMax = 1;
        for (Series r : result.replicas()) {
            replicaMax = Math.max(replicaMax, r.max());
        }
        for (var h : result.scenario().hpas()) {
            if (h.getSpec().getMaxReplicas() != null) {
                replicaMax = Math.max(replicaMax, Math.min(h.getSpec().getMaxReplicas(), replicaMax * 2));
            }
        }
        replicaMax = SvgPlot.niceCeiling(replicaMax + 1);

        SvgPlot.Panel top = new SvgPlot.Panel(TOP_Y, TOP_H, demandMax);
        SvgPlot.Panel bottom = new SvgPlot.Panel(bottomY, BOTTOM_H, replicaMax);
        plot.grid(top, "y-axis-demand");
        plot.grid(bottom, "y-axis-replicas");
        plot.xAxis(top, null);
        plot.xAxis(bottom, "x-axis-label");
        plot.yLabel(top, "y-axis-label-demand", "demand (" + unitLabel + ")");
        plot.yLabel(bottom, "y-axis-label-replicas", "replicas");

        svg.append("<g id=\"series\">\n");
        var load = result.scenario().load();
        boolean demandSteps = load.interpolation() == io.hpacontroller.sim.scenario.LoadTrace.Interpolation.STEP && load.noise() == null;
        plot.path("series-demand", "series demand", null, DEMAND_COLOR, "2", null, pathData(top, result.demand(), demandSteps));
        for (int i = 0; i < result.capacity().size(); i++) {
            plot.path("series-capacity-" + i, "series capacity", name(i), color(i), "2", capacityDash(), i * CAPACITY_DASH,
                    pathData(top, result.capacity().get(i), true));
        }
        for (int i = 0; i < result.replicas().size(); i++) {
            plot.path("series-replicas-" + i, "series replicas", name(i), color(i), "2.5", dash(i),
                    pathData(bottom, result.replicas().get(i), true));
            changeMarkers(i, bottom);
        }
        svg.append("</g>\n");
        legend(bottomY + BOTTOM_H + X_AXIS_SPACE);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private String name(int i) {
        return result.summaries().get(i).hpa();
    }

    /** A marker in the spec's shape (an outline) where its replica count changed, with the change as a tooltip. */
    private void changeMarkers(int i, SvgPlot.Panel p) {
        svg.append("<g class=\"change-markers\" data-hpa=\"").append(Html.escape(name(i))).append("\">");
        var changes = result.replicaChanges(name(i));
        for (int c = 0; c < Math.min(MARKED_CHANGES, changes.size()); c++) {
            var change = changes.get(c);
            svg.append(SvgPlot.marker(marker(i), plot.px(change.timeMillis()), p.py(change.to()), color(i), false,
                    name(i) + " at " + Figures.duration(change.timeMillis()) + ": " + change.from() + " -> " + change.to()));
        }
        svg.append("</g>\n");
    }

    /** A series as path data; a step line holds each value until the next bucket. Infinite values are left out. */
    private StringBuilder pathData(SvgPlot.Panel p, Series s, boolean steps) {
        StringBuilder d = new StringBuilder();
        boolean pen = false;
        for (int i = 0; i < s.size(); i++) {
            double v = s.valueAt(i);
            if (!Double.isFinite(v)) {
                pen = false;
                continue;
            }
            double x = plot.px(s.timeAt(i));
            double y = p.py(v);
            if (!pen) {
                d.append(String.format(Locale.ROOT, "M%.1f %.1f", x, y));
                pen = true;
            } else if (steps) {
                d.append(String.format(Locale.ROOT, "H%.1fV%.1f", x, y));
            } else {
                d.append(String.format(Locale.ROOT, "L%.1f %.1f", x, y));
            }
        }
        if (pen && steps) {
            d.append(String.format(Locale.ROOT, "H%.1f", plot.px(plot.duration)));
        }
        return d;
    }

    private void legend(int y) {
        int x = SvgPlot.LEFT;
        svg.append("<g id=\"legend\">\n");
        plot.legendItem(x, y, "series-demand", DEMAND_COLOR, null, null, "demand (" + result.scenario().load().unit() + ")", 1);
        for (int i = 0; i < result.summaries().size(); i++) {
            String color = color(i);
            int row = y + (i + 1) * LEGEND_LINE;
            plot.legendItem(x, row, "series-replicas-" + i, color, dash(i), marker(i), false, name(i) + ": replicas", 1);
            if (!result.capacity().isEmpty()) {
                plot.legendItem(x + 360, row, "series-capacity-" + i, color, capacityDash(), null, name(i) + ": capacity of Ready pods", 0.5);
            }
        }
        svg.append("</g>\n");
    }
}
