package io.hpacontroller.sim.report;

import io.hpacontroller.sim.Series;
import io.hpacontroller.sim.SimulationResult;

import java.util.Locale;

/**
 * The report's chart, as inline SVG: a top panel with the demand and each HPA's capacity, a bottom panel
 * with each HPA's replicas, a shared time axis, labelled axes and a legend. Every series has a stable id
 * ({@code series-demand}, {@code series-capacity-N}, {@code series-replicas-N}) and class, and names its HPA
 * in {@code data-hpa}.
 */
final class SvgChart {

    static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    static final String DEMAND_COLOR = "#555555";

    private static final int WIDTH = 960;
    private static final int LEFT = 80;
    private static final int RIGHT = 24;
    private static final int TOP_Y = 20;
    private static final int TOP_H = 230;
    private static final int GAP = 60;
    private static final int BOTTOM_H = 180;
    private static final int X_AXIS_SPACE = 50;
    private static final int LEGEND_LINE = 20;

    private final SimulationResult result;
    private final StringBuilder svg = new StringBuilder(64 * 1024);
    private final long duration;
    private final TimeUnit unit;

    private SvgChart(SimulationResult result) {
        this.result = result;
        this.duration = result.scenario().durationMillis();
        this.unit = TimeUnit.forDuration(duration);
    }

    static String render(SimulationResult result) {
        return new SvgChart(result).draw();
    }

    /** The time unit of the x axis. */
    private enum TimeUnit {
        SECONDS("s", 1000), MINUTES("min", 60_000), HOURS("h", 3_600_000);

        final String label;
        final long millis;

        TimeUnit(String label, long millis) {
            this.label = label;
            this.millis = millis;
        }

        static TimeUnit forDuration(long d) {
            return d <= 15 * 60_000L ? SECONDS : d <= 12 * 3_600_000L ? MINUTES : HOURS;
        }
    }

    private String draw() {
        int n = result.summaries().size();
        int legendRows = 1 + n;
        int bottomY = TOP_Y + TOP_H + GAP;
        int height = bottomY + BOTTOM_H + X_AXIS_SPACE + legendRows * LEGEND_LINE + 10;
        int plotW = WIDTH - LEFT - RIGHT;
        svg.append(String.format(Locale.ROOT,
                "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"demand, capacity and replicas over time\">%n",
                WIDTH, height, WIDTH, height));
        svg.append("<style>.axis line,.axis path{stroke:#333}.axis line.grid{stroke:#e3e3e3;stroke-width:1}.tick text{font:11px sans-serif;fill:#333}"
                + ".axis-label{font:12px sans-serif;fill:#111}.legend-item text{font:12px sans-serif;fill:#111}"
                + ".series{fill:none;stroke-linejoin:round}.capacity{stroke-opacity:0.5}</style>\n");

        String unitLabel = result.scenario().load().unit();
        double demandPeak = result.demand().max();
        double demandMax = demandPeak;
        for (Series c : result.capacity()) {
            demandMax = Math.max(demandMax, Math.min(c.max(), demandPeak * 5 + 1)); // a huge capacity does not flatten the demand
        }
        demandMax = niceCeiling(demandMax <= 0 ? 1 : demandMax * 1.05);
        double replicaMax = 1;
        for (Series r : result.replicas()) {
            replicaMax = Math.max(replicaMax, r.max());
        }
        for (var h : result.scenario().hpas()) {
            if (h.getSpec().getMaxReplicas() != null) {
                replicaMax = Math.max(replicaMax, Math.min(h.getSpec().getMaxReplicas(), replicaMax * 2));
            }
        }
        replicaMax = niceCeiling(replicaMax + 1);

        Panel top = new Panel(TOP_Y, TOP_H, demandMax, plotW);
        Panel bottom = new Panel(bottomY, BOTTOM_H, replicaMax, plotW);
        grid(top, "demand");
        grid(bottom, "replicas");
        xAxis(top, false);
        xAxis(bottom, true);
        yLabel(top, "y-axis-label-demand", "demand (" + unitLabel + ")");
        yLabel(bottom, "y-axis-label-replicas", "replicas");

        svg.append("<g id=\"series\">\n");
        var load = result.scenario().load();
        boolean demandSteps = load.interpolation() == io.hpacontroller.sim.LoadTrace.Interpolation.STEP && load.noise() == null;
        path("series-demand", "series demand", null, DEMAND_COLOR, "2", null, top, result.demand(), demandSteps);
        for (int i = 0; i < result.capacity().size(); i++) {
            path("series-capacity-" + i, "series capacity", name(i), COLORS[i % COLORS.length], "2", "6 4", top, result.capacity().get(i), true);
        }
        for (int i = 0; i < result.replicas().size(); i++) {
            path("series-replicas-" + i, "series replicas", name(i), COLORS[i % COLORS.length], "2.5", null, bottom, result.replicas().get(i), true);
        }
        svg.append("</g>\n");
        legend(bottomY + BOTTOM_H + X_AXIS_SPACE);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private String name(int i) {
        return result.summaries().get(i).hpa();
    }

    private record Panel(int y, int h, double max, int w) {
        double py(double v) {
            return y + h - (v / max) * h;
        }
    }

    private double px(long t) {
        return LEFT + (double) t / duration * (WIDTH - LEFT - RIGHT);
    }

    private void grid(Panel p, String what) {
        svg.append("<g class=\"axis y-axis\" id=\"y-axis-").append(what).append("\">\n");
        double step = niceStep(p.max / 5);
        for (double v = 0; v <= p.max + 1e-9; v += step) {
            double y = p.py(v);
            svg.append(String.format(Locale.ROOT, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", LEFT, WIDTH - RIGHT, y, y));
            svg.append(String.format(Locale.ROOT, "<g class=\"tick\"><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text></g>%n",
                    LEFT - 6, y + 4, Csv.number(v)));
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>%n", LEFT, LEFT, p.y, p.y + p.h));
        svg.append("</g>\n");
    }

    private void xAxis(Panel p, boolean label) {
        int y = p.y + p.h;
        svg.append("<g class=\"axis x-axis\">\n");
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>%n", LEFT, WIDTH - RIGHT, y, y));
        double step = niceStep((double) duration / unit.millis / 8);
        for (double v = 0; v * unit.millis <= duration + 1e-6; v += step) {
            double x = px(Math.round(v * unit.millis));
            svg.append(String.format(Locale.ROOT, "<g class=\"tick\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text></g>%n", x, x, y, y + 5, x, y + 18, Csv.number(v)));
        }
        svg.append("</g>\n");
        if (label) {
            svg.append(String.format(Locale.ROOT, "<text id=\"x-axis-label\" class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (%s)</text>%n",
                    LEFT + (WIDTH - LEFT - RIGHT) / 2, y + 38, unit.label));
        }
    }

    private void yLabel(Panel p, String id, String text) {
        int x = 18;
        int y = p.y + p.h / 2;
        svg.append(String.format(Locale.ROOT, "<text id=\"%s\" class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">%s</text>%n",
                id, x, y, x, y, Html.escape(text)));
    }

    /** A series as a path; a step line holds each value until the next bucket. Infinite values are left out. */
    private void path(String id, String cls, String hpa, String color, String width, String dash, Panel p, Series s, boolean steps) {
        StringBuilder d = new StringBuilder();
        boolean pen = false;
        for (int i = 0; i < s.size(); i++) {
            double v = s.valueAt(i);
            if (!Double.isFinite(v)) {
                pen = false;
                continue;
            }
            double x = px(Math.min(duration, s.timeAt(i)));
            double y = p.py(Math.min(v, p.max));
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
            d.append(String.format(Locale.ROOT, "H%.1f", px(duration)));
        }
        svg.append("<path id=\"").append(id).append("\" class=\"").append(cls).append('"');
        if (hpa != null) {
            svg.append(" data-hpa=\"").append(Html.escape(hpa)).append('"');
        }
        svg.append(" stroke=\"").append(color).append("\" stroke-width=\"").append(width).append('"');
        if (dash != null) {
            svg.append(" stroke-dasharray=\"").append(dash).append('"');
        }
        svg.append(" d=\"").append(d.length() == 0 ? "M0 0" : d).append("\"/>\n");
    }

    private void legend(int y) {
        svg.append("<g id=\"legend\">\n");
        legendItem(LEFT, y, "series-demand", DEMAND_COLOR, null, "demand (" + result.scenario().load().unit() + ")", 1);
        for (int i = 0; i < result.summaries().size(); i++) {
            String color = COLORS[i % COLORS.length];
            int row = y + (i + 1) * LEGEND_LINE;
            legendItem(LEFT, row, "series-replicas-" + i, color, null, name(i) + ": replicas", 1);
            if (!result.capacity().isEmpty()) {
                legendItem(LEFT + 360, row, "series-capacity-" + i, color, "6 4", name(i) + ": capacity of Ready pods", 0.5);
            }
        }
        svg.append("</g>\n");
    }

    private void legendItem(int x, int y, String series, String color, String dash, String text, double opacity) {
        svg.append(String.format(Locale.ROOT, "<g class=\"legend-item\" data-series=\"%s\"><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2.5\" stroke-opacity=\"%s\"%s/>"
                        + "<text x=\"%d\" y=\"%d\">%s</text></g>%n",
                series, x, x + 28, y, y, color, Csv.number(opacity), dash == null ? "" : " stroke-dasharray=\"" + dash + "\"", x + 36, y + 4, Html.escape(text)));
    }

    /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
    static double niceStep(double raw) {
        if (raw <= 0 || !Double.isFinite(raw)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= raw) {
                return m * p;
            }
        }
        return 10 * p;
    }

    /** The smallest multiple of a nice step (a fifth of the value) at or above the value. */
    static double niceCeiling(double v) {
        double step = niceStep(v / 5);
        return Math.ceil(v / step) * step;
    }

}
