package io.hpacontroller.sim.report;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a report as the browser rendered it: from the DOM Chromium dumped (what delayed each spec's scale steps above
 * the chart, the chart, one series per HPA spec, labelled axes, a legend, the summary table, each spec's decision chart,
 * nothing fetched from the network)
 * and from its screenshot (each HPA's replicas line and the demand line were painted across the plot, and so were
 * the decision charts' metric line, tolerance band and written replicas).
 */
final class RenderedReport {

    /** A line drawn across the plot covers most of its ~870 pixel columns; legend and table swatches cover 40. */
    static final int MIN_LINE_COLUMNS = 400;

    private RenderedReport() {
    }

    static List<String> problems(String dom, BufferedImage screenshot, List<String> hpas) {
        List<String> problems = new ArrayList<>();
        if (!dom.contains("<svg id=\"chart\"")) {
            problems.add("no <svg id=\"chart\"> in the DOM");
        }
        for (int i = 0; i < hpas.size(); i++) {
            String d = pathData(dom, "series-replicas-" + i, hpas.get(i));
            if (d == null) {
                problems.add("no replicas series for " + hpas.get(i));
            } else if (segments(d) < 2) {
                problems.add("the replicas series of " + hpas.get(i) + " has no line: d=\"" + d + "\"");
            }
        }
        if (pathData(dom, "series-replicas-" + hpas.size(), null) != null) {
            problems.add("more replicas series than HPA specs");
        }
        String demand = pathData(dom, "series-demand", null);
        if (demand == null || segments(demand) < 2) {
            problems.add("no demand series");
        }
        for (String[] label : new String[][] {{"x-axis-label", "time ("}, {"y-axis-label-demand", "demand ("}, {"y-axis-label-replicas", "replicas"}}) {
            Matcher m = Pattern.compile("<text id=\"" + label[0] + "\"[^>]*>([^<]*)</text>").matcher(dom);
            if (!m.find() || !m.group(1).startsWith(label[1])) {
                problems.add("axis label " + label[0] + " missing or not \"" + label[1] + "...\"");
            }
        }
        long legendItems = Pattern.compile("class=\"legend-item\"").matcher(dom).results().count();
        if (legendItems < 1 + hpas.size()) {
            problems.add("the legend has " + legendItems + " items for " + hpas.size() + " HPA specs");
        }
        Matcher table = Pattern.compile("<table id=\"summary\">(.*?)</table>", Pattern.DOTALL).matcher(dom);
        if (!table.find()) {
            problems.add("no summary table");
        } else {
            List<String> rows = Pattern.compile("<tr class=\"hpa-row\" data-hpa=\"([^\"]*)\"").matcher(table.group(1)).results().map(r -> r.group(1)).toList();
            if (!rows.equals(hpas)) {
                problems.add("summary rows " + rows + ", expected " + hpas);
            }
        }
        Matcher delays = Pattern.compile("<ul id=\"scale-delays\">(.*?)</ul>", Pattern.DOTALL).matcher(dom);
        if (!delays.find() || delays.start() > dom.indexOf("<svg id=\"chart\"")) {
            problems.add("no list of what delayed each scale step above the chart");
        } else {
            List<String> items = Pattern.compile("<li class=\"scale-delays\" data-hpa=\"([^\"]*)\">").matcher(delays.group(1)).results()
                    .map(r -> r.group(1)).toList();
            if (!items.equals(hpas)) {
                problems.add("scale delays of " + items + ", expected " + hpas);
            }
        }
        problems.addAll(decisionProblems(dom, hpas));
        if (dom.contains("<script") || Pattern.compile("(src|href)=\"(https?:)?//").matcher(dom).find() || dom.contains("@import") || dom.contains("url(")) {
            problems.add("the report is not self-contained");
        }
        for (int i = 0; i < hpas.size(); i++) {
            int columns = columnsPainted(screenshot, SvgChart.color(i));
            if (columns < MIN_LINE_COLUMNS) {
                problems.add("the replicas line of " + hpas.get(i) + " was painted over " + columns + " pixel columns only");
            }
        }
        if (columnsPainted(screenshot, SvgChart.DEMAND_COLOR) < MIN_LINE_COLUMNS) {
            problems.add("the demand line was not painted across the plot");
        }
        for (String[] part : new String[][] {{DecisionChart.METRIC_COLOR, "the metric line"}, {DecisionChart.BAND_FILL, "the tolerance band"},
                {DecisionChart.REPLICAS_COLOR, "the written replicas line"}}) {
            int columns = columnsPainted(screenshot, part[0]);
            if (columns < MIN_LINE_COLUMNS) {
                problems.add(part[1] + " of the decision charts was painted over " + columns + " pixel columns only");
            }
        }
        return problems;
    }

    /**
     * Each spec's decision chart: its metric, target, replicas, proposal, min and max lines with their points, the
     * tolerance band shaded, its labelled axes; or, when every sync failed, the errors in words above it.
     */
    static List<String> decisionProblems(String dom, List<String> hpas) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < hpas.size(); i++) {
            String hpa = hpas.get(i);
            String chart = element(dom, "<svg id=\"decisions-" + i + "\" class=\"decision-chart\" data-hpa=\"" + hpa + "\"", "</svg>");
            if (chart == null) {
                problems.add("no decision chart for " + hpa);
                continue;
            }
            String errors = element(dom, "<div class=\"sync-errors\" data-hpa=\"" + hpa + "\">", "</div>");
            String metric = pathData(chart, "decisions-" + i + "-metric", hpa);
            boolean metricSeen = metric != null && segments(metric) >= 1;
            if (!metricSeen && (errors == null || !errors.contains("class=\"error-message\""))) {
                problems.add("the decision chart of " + hpa + " has no metric line and the report shows no error for it");
            }
            List<String> parts = metricSeen ? List.of("target", "replicas", "proposal", "min", "max") : List.of("replicas", "max");
            for (String part : parts) {
                String d = pathData(chart, "decisions-" + i + "-" + part, hpa);
                if (d == null || d.equals("M0 0")) {
                    problems.add("the decision chart of " + hpa + " has no " + part + " line");
                }
            }
            if (metricSeen) {
                String band = element(chart, "<g id=\"decisions-" + i + "-tolerance-band\"", "</g>");
                if (band == null || !band.contains("<rect")) {
                    problems.add("the decision chart of " + hpa + " shades no tolerance band");
                }
            }
            for (String label : List.of("x-axis-label", "y-axis-label-metric", "y-axis-label-replicas")) {
                if (!chart.contains("id=\"decisions-" + i + "-" + label + "\"")) {
                    problems.add("the decision chart of " + hpa + " has no " + label);
                }
            }
        }
        return problems;
    }

    /** The text from {@code start} to the first {@code end} after it; null when there is no start. */
    static String element(String dom, String start, String end) {
        int from = dom.indexOf(start);
        if (from < 0) {
            return null;
        }
        int to = dom.indexOf(end, from);
        return to < 0 ? dom.substring(from) : dom.substring(from, to + end.length());
    }

    /** The d attribute of the path with this id (and data-hpa, when given); null when there is none. */
    static String pathData(String dom, String id, String hpa) {
        Matcher m = Pattern.compile("<path([^>]*\\bid=\"" + Pattern.quote(id) + "\"[^>]*)>").matcher(dom);
        if (!m.find()) {
            return null;
        }
        String attrs = m.group(1);
        if (hpa != null && !attrs.contains("data-hpa=\"" + hpa + "\"")) {
            return null;
        }
        Matcher d = Pattern.compile("\\bd=\"([^\"]*)\"").matcher(attrs);
        return d.find() ? d.group(1) : "";
    }

    private static int segments(String d) {
        return (int) d.chars().filter(c -> c == 'L' || c == 'H' || c == 'V').count();
    }

    /** How many pixel columns hold at least one pixel of exactly this colour (give or take anti-aliasing). */
    static int columnsPainted(BufferedImage img, String hex) {
        int rgb = Integer.parseInt(hex.substring(1), 16);
        int r = rgb >> 16 & 0xff;
        int g = rgb >> 8 & 0xff;
        int b = rgb & 0xff;
        int columns = 0;
        for (int x = 0; x < img.getWidth(); x++) {
            for (int y = 0; y < img.getHeight(); y++) {
                int p = img.getRGB(x, y);
                if (Math.abs((p >> 16 & 0xff) - r) <= 12 && Math.abs((p >> 8 & 0xff) - g) <= 12 && Math.abs((p & 0xff) - b) <= 12) {
                    columns++;
                    break;
                }
            }
        }
        return columns;
    }
}
