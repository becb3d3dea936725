package io.hpacontroller.sim.report;

import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.TimelineRow;
import io.hpacontroller.sim.TraceFields;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * One HPA spec's decisions as inline SVG ({@code <svg id="decisions-N" class="decision-chart">}), drawn from its
 * syncs' decision traces: a top panel with the first metric as the HPA saw it against its target, the tolerance
 * band around the target shaded; a bottom panel with the raw proposal next to the written replicas, the
 * minReplicas and maxReplicas lines, the time the scale-down stabilization window held a scale-down shaded, a
 * marker at each replica change with its decision in words, and a tick under each sync that failed. Each part
 * has the id {@code decisions-N-PART}.
 */
final class DecisionChart {

    static final String METRIC_COLOR = "#006d77";
    static final String TARGET_COLOR = "#111111";
    static final String BAND_FILL = "#cfe9d4";
    static final String REPLICAS_COLOR = "#3a0ca3";
    static final String PROPOSAL_COLOR = "#c77d00";
    static final String BOUND_COLOR = "#8a8a8a";
    static final String HELD_FILL = "#fde2c8";
    static final String ERROR_COLOR = "#b00020";

    private static final int TOP_Y = 30;
    private static final int PANEL_H = 170;
    private static final int GAP = 70;
    private static final int X_AXIS_SPACE = 50;
    private static final int LEGEND_LINE = 20;
    /** Lines with more syncs than this are thinned to the first, lowest, highest and last value per pixel column. */
    private static final int THIN_ABOVE = 2 * SvgPlot.PLOT_WIDTH;
    /** Syncs marked one by one (with a tooltip) on the metric line; above it, the line alone. */
    private static final int MARKED_SYNCS = 300;
    /** Replica changes marked on the replicas line. */
    private static final int MARKED_CHANGES = 200;

    private final SimulationResult result;
    private final String hpa;
    private final List<TimelineRow> rows;
    private final SvgPlot plot;
    private final StringBuilder svg;
    private final String id;

    private DecisionChart(SimulationResult result, int index) {
        this.result = result;
        this.hpa = result.summaries().get(index).hpa();
        this.rows = result.timelineOf(hpa);
        this.plot = new SvgPlot(result.scenario().durationMillis());
        this.svg = plot.svg;
        this.id = "decisions-" + index;
    }

    /** The chart of the spec at {@code index} in the scenario. */
    static String render(SimulationResult result, int index) {
        return new DecisionChart(result, index).draw();
    }

    private String draw() {
        SvgPlot.Panel metric = new SvgPlot.Panel(TOP_Y, PANEL_H, metricMax());
        SvgPlot.Panel replicas = new SvgPlot.Panel(TOP_Y + PANEL_H + GAP, PANEL_H, replicaMax());
        int legendY = replicas.y() + PANEL_H + X_AXIS_SPACE;
        int height = legendY + 2 * LEGEND_LINE;
        svg.append(String.format(Locale.ROOT,
                "<svg id=\"%s\" class=\"decision-chart\" data-hpa=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                        + "role=\"img\" aria-label=\"%s: the metric against its target, the proposal and the replicas over time\">%n",
                id, Html.escape(hpa), SvgPlot.WIDTH, height, SvgPlot.WIDTH, height, Html.escape(hpa)));
        svg.append("<style>.axis line,.axis path{stroke:#333}.axis line.grid{stroke:#e3e3e3;stroke-width:1}.tick text{font:11px sans-serif;fill:#333}"
                + ".axis-label,.panel-title{font:12px sans-serif;fill:#111}.bound-label{font:11px sans-serif;fill:#555}.legend-item text{font:12px sans-serif;fill:#111}"
                + ".series{fill:none;stroke-linejoin:round}</style>\n");

        String metricName = rows.stream().map(r -> r.trace().metric()).filter(m -> m != null).findFirst().orElse(null);
        double highest = rows.stream().mapToDouble(r -> r.trace().metricCurrent()).filter(Double::isFinite).max().orElse(0);
        text(metric.y() - 10, "panel-title", id + "-metric-title", metricName == null
                ? "no metric value: every sync's first metric failed"
                : "first metric, as the HPA saw it at each sync: " + metricName
                        + (highest > metric.max() ? " (values above " + Csv.number(metric.max()) + " drawn at the top; highest " + Csv.number(highest) + ")" : ""));
        plot.grid(metric, id + "-y-axis-metric");
        band(metric);
        plot.xAxis(metric, null);
        plot.yLabel(metric, id + "-y-axis-label-metric", "metric");
        plot.path(id + "-target", "series target", hpa, TARGET_COLOR, "1.5", "6 3", steps(metric, r -> r.trace().metricTarget()));
        plot.path(id + "-metric", "series metric-seen", hpa, METRIC_COLOR, "2", null, line(metric, r -> r.trace().metricCurrent()));
        metricMarkers(metric);

        text(replicas.y() - 10, "panel-title", id + "-replicas-title", "replicas: the raw proposal of the metrics, and the count written");
        plot.grid(replicas, id + "-y-axis-replicas");
        held(replicas);
        plot.xAxis(replicas, id + "-x-axis-label");
        plot.yLabel(replicas, id + "-y-axis-label-replicas", "replicas");
        plot.path(id + "-min", "series bound min-replicas", hpa, BOUND_COLOR, "1.5", "3 3", steps(replicas, r -> count(r.trace().minReplicas())));
        plot.path(id + "-max", "series bound max-replicas", hpa, BOUND_COLOR, "1.5", "3 3", steps(replicas, r -> count(r.trace().maxReplicas())));
        boundLabel(replicas, "min", r -> r.trace().minReplicas());
        boundLabel(replicas, "max", r -> r.trace().maxReplicas());
        plot.path(id + "-replicas", "series replicas-written", hpa, REPLICAS_COLOR, "2.5", null, written(replicas));
        plot.path(id + "-proposal", "series proposal", hpa, PROPOSAL_COLOR, "2", "2 3", steps(replicas, r -> count(r.proposedReplicas())));
        changeMarkers(replicas);
        errorTicks(replicas);
        legend(legendY);
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** "min 2" or "max 10" at the right end of the line, from the last sync that read the bounds. */
    private void boundLabel(SvgPlot.Panel p, String which, ToIntFunction<TimelineRow> bound) {
        for (int k = rows.size() - 1; k >= 0; k--) {
            int v = bound.applyAsInt(rows.get(k));
            if (v >= 0) {
                svg.append(String.format(Locale.ROOT, "<text class=\"bound-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s %d</text>%n",
                        SvgPlot.WIDTH - SvgPlot.RIGHT - 4, p.py(v) - 4, which, v));
                return;
            }
        }
    }

    private static double count(int n) {
        return n < 0 ? Double.NaN : n;
    }

    private void text(int y, String cls, String textId, String text) {
        svg.append(String.format(Locale.ROOT, "<text id=\"%s\" class=\"%s\" x=\"%d\" y=\"%d\">%s</text>%n", textId, cls, SvgPlot.LEFT, y, Html.escape(text)));
    }

    /** When the sync at row k stops holding: the next sync, or the end. */
    private long until(int k) {
        return k + 1 < rows.size() ? rows.get(k + 1).timeMillis() : plot.duration;
    }

    private double metricMax() {
        double band = 0;
        double seen = 0;
        for (TimelineRow r : rows) {
            double target = r.trace().metricTarget();
            if (Double.isFinite(target)) {
                band = Math.max(band, r.tolerances() == null ? target : target * (1 + r.tolerances().scaleUp()));
            }
            if (Double.isFinite(r.trace().metricCurrent())) {
                seen = Math.max(seen, r.trace().metricCurrent());
            }
        }
        // a spike far above the target does not flatten the band: it is drawn at the top
        double max = band <= 0 ? seen * 1.05 : Math.max(band * 1.2, Math.min(seen * 1.05, band * 4));
        return SvgPlot.niceCeiling(max <= 0 ? 1 : max);
    }

    private double replicaMax() {
        double max = result.scenario().workload().replicas();
        double proposal = 0;
        for (TimelineRow r : rows) {
            max = Math.max(max, Math.max(r.replicas(), r.trace().maxReplicas()));
            proposal = Math.max(proposal, r.proposedReplicas());
        }
        // a huge proposal is drawn at the top rather than squeezing the replicas
        return SvgPlot.niceCeiling(Math.max(max, Math.min(proposal, 2 * max)) + 1);
    }

    /** The tolerance band, {@code target x [1 - scaleDown, 1 + scaleUp]}, shaded from the first sync with a target on; a failed metric leaves no gap. */
    private void band(SvgPlot.Panel p) {
        svg.append("<g id=\"").append(id).append("-tolerance-band\" class=\"tolerance-band\">");
        double low = Double.NaN;
        double high = Double.NaN;
        double target = Double.NaN;
        double x1 = 0;
        double x2 = 0;
        for (int k = 0; k < rows.size(); k++) {
            TimelineRow r = rows.get(k);
            double t = r.trace().metricTarget();
            if (!Double.isFinite(t) || r.tolerances() == null) {
                continue;
            }
            double l = t * (1 - r.tolerances().scaleDown());
            double h = t * (1 + r.tolerances().scaleUp());
            if (l != low || h != high) {
                if (!Double.isNaN(low)) {
                    bandRect(p, x1, x2, low, high, target);
                }
                low = l;
                high = h;
                target = t;
                x1 = plot.px(r.timeMillis());
            }
            x2 = plot.px(until(k));
        }
        if (!Double.isNaN(low)) {
            bandRect(p, x1, x2, low, high, target);
        }
        svg.append("</g>\n");
    }

    private void bandRect(SvgPlot.Panel p, double x1, double x2, double low, double high, double target) {
        rect(x1, p.py(high), x2, p.py(low), BAND_FILL,
                "tolerance band " + Csv.number(low) + " to " + Csv.number(high) + " around the target " + Csv.number(target));
    }

    /**
     * The syncs at which the scale-down stabilization window kept the count up, shaded until the next sync; spans
     * less than a pixel apart are drawn as one.
     */
    private void held(SvgPlot.Panel p) {
        svg.append("<g id=\"").append(id).append("-stabilization\" class=\"stabilization-held\">");
        long from = -1;
        long to = -1;
        for (int k = 0; k < rows.size(); k++) {
            if (!rows.get(k).trace().heldScaleDown()) {
                continue;
            }
            long t = rows.get(k).timeMillis();
            if (from >= 0 && plot.px(t) - plot.px(to) >= 1) {
                heldRect(p, from, to);
                from = -1;
            }
            if (from < 0) {
                from = t;
            }
            to = until(k);
        }
        if (from >= 0) {
            heldRect(p, from, to);
        }
        svg.append("</g>\n");
    }

    private void heldRect(SvgPlot.Panel p, long from, long to) {
        rect(plot.px(from), p.y(), plot.px(to), p.y() + p.h(), HELD_FILL,
                "the scale-down window held a scale-down from " + Figures.duration(from) + " to " + Figures.duration(to));
    }

    private void rect(double x1, double y1, double x2, double y2, String fill, String title) {
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>",
                x1, y1, Math.max(1, x2 - x1), Math.max(1, y2 - y1), fill, Html.escape(title)));
    }

    /**
     * Each sync's value at its time, NaN for none. With more syncs than {@link #THIN_ABOVE}, per pixel column its
     * first, lowest, highest and last value, so that peaks survive (a column without any value is a gap).
     */
    private List<double[]> points(ToDoubleFunction<TimelineRow> value) {
        List<double[]> out = new ArrayList<>();
        boolean thin = rows.size() > THIN_ABOVE;
        int column = Integer.MIN_VALUE;
        double[] c = null; // first, low, high, last
        for (TimelineRow r : rows) {
            double x = plot.px(r.timeMillis());
            double v = value.applyAsDouble(r);
            if (!thin) {
                out.add(new double[] {x, v});
                continue;
            }
            if ((int) x != column) {
                flush(out, column, c);
                column = (int) x;
                c = new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN};
            }
            if (Double.isFinite(v)) {
                c[0] = Double.isNaN(c[0]) ? v : c[0];
                c[1] = Double.isNaN(c[1]) ? v : Math.min(c[1], v);
                c[2] = Double.isNaN(c[2]) ? v : Math.max(c[2], v);
                c[3] = v;
            }
        }
        flush(out, column, c);
        return out;
    }

    private static void flush(List<double[]> out, int column, double[] c) {
        if (c == null) {
            return;
        }
        if (Double.isNaN(c[0])) {
            out.add(new double[] {column, Double.NaN});
            return;
        }
        double previous = Double.NaN;
        for (double v : c) {
            if (v != previous) {
                out.add(new double[] {column, v});
            }
            previous = v;
        }
    }

    /** A value per sync, held until the next sync; NaN leaves a gap. */
    private StringBuilder steps(SvgPlot.Panel p, ToDoubleFunction<TimelineRow> value) {
        StringBuilder d = new StringBuilder();
        double last = Double.NaN;
        for (double[] point : points(value)) {
            double x = point[0];
            double v = point[1];
            if (!Double.isFinite(v)) {
                if (Double.isFinite(last)) {
                    d.append(String.format(Locale.ROOT, "H%.1f", x));
                }
            } else if (!Double.isFinite(last)) {
                d.append(String.format(Locale.ROOT, "M%.1f %.1f", x, p.py(v)));
            } else if (v != last) {
                d.append(String.format(Locale.ROOT, "H%.1fV%.1f", x, p.py(v)));
            }
            last = v;
        }
        if (Double.isFinite(last)) {
            d.append(String.format(Locale.ROOT, "H%.1f", plot.px(plot.duration)));
        }
        return d;
    }

    /** The replicas written: the workload's count from time 0, then each sync's. */
    private StringBuilder written(SvgPlot.Panel p) {
        int initial = result.scenario().workload().replicas();
        StringBuilder d = new StringBuilder(String.format(Locale.ROOT, "M%.1f %.1f", plot.px(0), p.py(initial)));
        int last = initial;
        for (TimelineRow r : rows) {
            if (r.replicas() != last) {
                d.append(String.format(Locale.ROOT, "H%.1fV%.1f", plot.px(r.timeMillis()), p.py(r.replicas())));
                last = r.replicas();
            }
        }
        return d.append(String.format(Locale.ROOT, "H%.1f", plot.px(plot.duration)));
    }

    /** A value per sync joined by straight lines; NaN leaves a gap. */
    private StringBuilder line(SvgPlot.Panel p, ToDoubleFunction<TimelineRow> value) {
        StringBuilder d = new StringBuilder();
        boolean pen = false;
        for (double[] point : points(value)) {
            if (!Double.isFinite(point[1])) {
                pen = false;
                continue;
            }
            d.append(String.format(Locale.ROOT, "%s%.1f %.1f", pen ? "L" : "M", point[0], p.py(point[1])));
            pen = true;
        }
        return d;
    }

    private void metricMarkers(SvgPlot.Panel p) {
        if (rows.size() > MARKED_SYNCS) {
            return;
        }
        svg.append("<g class=\"metric-markers\">");
        for (TimelineRow r : rows) {
            TraceFields t = r.trace();
            if (Double.isFinite(t.metricCurrent())) {
                svg.append(SvgPlot.marker("circle", plot.px(r.timeMillis()), p.py(t.metricCurrent()), METRIC_COLOR,
                        Figures.duration(r.timeMillis()) + ": " + Csv.number(t.metricCurrent()) + " against a target of " + Csv.number(t.metricTarget())
                                + (Double.isFinite(t.usageRatio()) ? ", usage ratio " + Csv.number(t.usageRatio()) : "")));
            }
        }
        svg.append("</g>\n");
    }

    /** At each replica change: a marker on the written line, with the decision in words. */
    private void changeMarkers(SvgPlot.Panel p) {
        svg.append("<g id=\"").append(id).append("-changes\" class=\"change-markers\">");
        int marked = 0;
        for (SimulationResult.ReplicaChange c : result.replicaChanges(hpa)) {
            if (++marked > MARKED_CHANGES) {
                break;
            }
            svg.append(SvgPlot.marker("diamond", plot.px(c.timeMillis()), p.py(c.to()), REPLICAS_COLOR,
                    Figures.duration(c.timeMillis()) + ": " + c.decision()));
        }
        svg.append("</g>\n");
    }

    /** A short tick under each sync that ended with an error (one per pixel column). */
    private void errorTicks(SvgPlot.Panel p) {
        StringBuilder d = new StringBuilder();
        int bottom = p.y() + p.h();
        int column = Integer.MIN_VALUE;
        for (TimelineRow r : rows) {
            double x = plot.px(r.timeMillis());
            if (r.trace().errorReason() != null && (int) x != column) {
                d.append(String.format(Locale.ROOT, "M%.1f %dV%d", x, bottom - 10, bottom));
                column = (int) x;
            }
        }
        if (d.length() > 0) {
            plot.path(id + "-errors", "series sync-errors", hpa, ERROR_COLOR, "2", null, d);
        }
    }

    private void legend(int y) {
        int x = SvgPlot.LEFT;
        svg.append("<g class=\"legend\">\n");
        plot.legendItem(x, y, id + "-metric", METRIC_COLOR, null, "circle", "metric the HPA saw", 1);
        plot.legendItem(x + 200, y, id + "-target", TARGET_COLOR, "6 3", null, "target", 1);
        plot.legendArea(x + 320, y, id + "-tolerance-band", BAND_FILL, "tolerance band (no scaling inside)");
        int y2 = y + LEGEND_LINE;
        plot.legendItem(x, y2, id + "-replicas", REPLICAS_COLOR, null, "diamond", "replicas written", 1);
        plot.legendItem(x + 170, y2, id + "-proposal", PROPOSAL_COLOR, "2 3", null, "raw proposal", 1);
        plot.legendItem(x + 310, y2, id + "-min", BOUND_COLOR, "3 3", null, "min/max", 1);
        plot.legendArea(x + 420, y2, id + "-stabilization", HELD_FILL, "scale-down held by the window");
        if (rows.stream().anyMatch(r -> r.trace().errorReason() != null)) {
            plot.legendItem(x + 660, y2, id + "-errors", ERROR_COLOR, null, null, "sync failed", 1);
        }
        svg.append("</g>\n");
    }
}
