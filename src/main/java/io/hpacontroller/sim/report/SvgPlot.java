package io.hpacontroller.sim.report;

import java.util.Locale;

/**
 * Drawing on one inline SVG over the run's time: a time axis from 0 to the run's duration, panels with a value
 * axis and grid, paths and legend items. The report's charts ({@link SvgChart}, {@link DecisionChart}) share it.
 */
final class SvgPlot {

    static final int WIDTH = 960;
    static final int LEFT = 80;
    static final int RIGHT = 24;
    static final int PLOT_WIDTH = WIDTH - LEFT - RIGHT;

    final StringBuilder svg = new StringBuilder(64 * 1024);
    final long duration;
    private final TimeUnit unit;

    SvgPlot(long durationMillis) {
        this.duration = durationMillis;
        this.unit = TimeUnit.forDuration(durationMillis);
    }

    /** A value axis: the panel's top, height, and the value at its top. */
    record Panel(int y, int h, double max) {
        double py(double v) {
            return y + h - (Math.min(v, max) / max) * h;
        }
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

    double px(long t) {
        return LEFT + (double) Math.min(t, duration) / duration * PLOT_WIDTH;
    }

    /** The value axis with its grid lines, as {@code <g id="ID" class="axis y-axis">}. */
    void grid(Panel p, String id) {
        svg.append("<g class=\"axis y-axis\" id=\"").append(id).append("\">\n");
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

    /** The time axis under a panel, labelled "time (unit)" with {@code <text id="LABELID">} when the id is not null. */
    void xAxis(Panel p, String labelId) {
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
        if (labelId != null) {
            svg.append(String.format(Locale.ROOT, "<text id=\"%s\" class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (%s)</text>%n",
                    labelId, LEFT + PLOT_WIDTH / 2, y + 38, unit.label));
        }
    }

    void yLabel(Panel p, String id, String text) {
        int x = 18;
        int y = p.y + p.h / 2;
        svg.append(String.format(Locale.ROOT, "<text id=\"%s\" class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">%s</text>%n",
                id, x, y, x, y, Html.escape(text)));
    }

    /** A path element; {@code hpa} (data-hpa) and {@code dash} may be null, an empty {@code d} draws nothing. */
    void path(String id, String cls, String hpa, String color, String width, String dash, CharSequence d) {
        path(id, cls, hpa, color, width, dash, 0, d);
    }

    /** A path element whose dashes start {@code dashOffset} into the pattern. */
    void path(String id, String cls, String hpa, String color, String width, String dash, int dashOffset, CharSequence d) {
        svg.append("<path");
        if (id != null) {
            svg.append(" id=\"").append(id).append('"');
        }
        svg.append(" class=\"").append(cls).append('"');
        if (hpa != null) {
            svg.append(" data-hpa=\"").append(Html.escape(hpa)).append('"');
        }
        svg.append(" stroke=\"").append(color).append("\" stroke-width=\"").append(width).append('"');
        if (dash != null) {
            svg.append(" stroke-dasharray=\"").append(dash).append('"');
            if (dashOffset != 0) {
                svg.append(" stroke-dashoffset=\"").append(-dashOffset).append('"');
            }
        }
        svg.append(" d=\"").append(d.length() == 0 ? "M0 0" : d).append("\"/>\n");
    }

    /** A legend entry: a sample of the line (its dash, its marker when not null) and the text. */
    void legendItem(int x, int y, String series, String color, String dash, String marker, String text, double opacity) {
        legendItem(x, y, series, color, dash, marker, true, text, opacity);
    }

    /** A legend entry whose marker is an outline when not {@code filled}. */
    void legendItem(int x, int y, String series, String color, String dash, String marker, boolean filled, String text, double opacity) {
        svg.append(String.format(Locale.ROOT, "<g class=\"legend-item\" data-series=\"%s\"><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2.5\" stroke-opacity=\"%s\"%s/>",
                series, x, x + 28, y, y, color, Csv.number(opacity), dash == null ? "" : " stroke-dasharray=\"" + dash + "\""));
        if (marker != null) {
            svg.append(marker(marker, x + 14, y, color, filled, null));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text></g>%n", x + 36, y + 4, Html.escape(text)));
    }

    /** A legend entry for a shaded area: a swatch of its fill and the text. */
    void legendArea(int x, int y, String series, String fill, String text) {
        svg.append(String.format(Locale.ROOT, "<g class=\"legend-item\" data-series=\"%s\"><rect x=\"%d\" y=\"%d\" width=\"28\" height=\"10\" fill=\"%s\"/>"
                + "<text x=\"%d\" y=\"%d\">%s</text></g>%n", series, x, y - 5, fill, x + 36, y + 4, Html.escape(text)));
    }

    /** A filled marker shape (circle, square, triangle, diamond) centred on x, y, with a tooltip when {@code title} is not null. */
    static String marker(String shape, double x, double y, String color, String title) {
        return marker(shape, x, y, color, true, title);
    }

    /**
     * A marker shape (circle, square, triangle, diamond) centred on x, y; an outline when not {@code filled}, so that
     * markers of other series at the same point show through; with a tooltip when {@code title} is not null.
     */
    static String marker(String shape, double x, double y, String color, boolean filled, String title) {
        String paint = filled ? "fill=\"" + color + "\"" : "fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.8\"";
        String element = shape.equals("circle") ? "circle" : shape.equals("square") ? "rect" : "path";
        String end = title == null ? "/>" : "><title>" + Html.escape(title) + "</title></" + element + ">";
        return switch (shape) {
            case "circle" -> String.format(Locale.ROOT, "<circle class=\"marker\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" %s%s", x, y, paint, end);
            case "square" -> String.format(Locale.ROOT, "<rect class=\"marker\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" %s%s", x - 5, y - 5, paint, end);
            case "triangle" -> String.format(Locale.ROOT, "<path class=\"marker\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" %s%s",
                    x, y - 7, x + 6.5, y + 4.5, x - 6.5, y + 4.5, paint, end);
            default -> String.format(Locale.ROOT, "<path class=\"marker\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" %s%s",
                    x, y - 6, x + 6, y, x, y + 6, x - 6, y, paint, end);
        };
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
