package io.hpacontroller.sim.report;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a report as the browser rendered it: from the DOM Chromium dumped (the chart, one series per HPA
 * spec, labelled axes, a legend, the summary table, nothing fetched from the network) and from its
 * screenshot (each HPA's replicas line and the demand line were painted across the plot).
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
        if (dom.contains("<script") || Pattern.compile("(src|href)=\"(https?:)?//").matcher(dom).find() || dom.contains("@import") || dom.contains("url(")) {
            problems.add("the report is not self-contained");
        }
        for (int i = 0; i < hpas.size(); i++) {
            int columns = columnsPainted(screenshot, SvgChart.COLORS[i % SvgChart.COLORS.length]);
            if (columns < MIN_LINE_COLUMNS) {
                problems.add("the replicas line of " + hpas.get(i) + " was painted over " + columns + " pixel columns only");
            }
        }
        if (columnsPainted(screenshot, SvgChart.DEMAND_COLOR) < MIN_LINE_COLUMNS) {
            problems.add("the demand line was not painted across the plot");
        }
        return problems;
    }

    /** The d attribute of the path with this id (and data-hpa, when given); null when there is none. */
    private static String pathData(String dom, String id, String hpa) {
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
    private static int columnsPainted(BufferedImage img, String hex) {
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
