package io.hpacontroller.sim.report;

import io.hpacontroller.sim.Simulation;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.scenario.ScenarioReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Opens report.html in headless Chromium: the DOM it built and the pixels it painted must show the chart with
 * one series per HPA spec, labelled axes, a legend and the summary table. Skipped when Chromium is not
 * installed (CI installs Debian's chromium package).
 */
class ReportInBrowserTest {

    static final List<String> HPAS = List.of("tight", "headroom");
    /** Tall enough for the whole page: what delayed each step, the chart, the summary, and each spec's decision chart and replica changes. */
    static final int PAGE_HEIGHT = 7000;

    static Optional<Chromium> chromium;
    static String report;

    @BeforeAll
    static void simulate() throws Exception {
        chromium = Chromium.find();
        SimulationResult result = Simulation.run(new ScenarioReader().read(Path.of("examples/compare-two-specs.yaml")));
        report = ReportPage.render(result);
    }

    /** A page as Chromium rendered it: the DOM it built and a screenshot {@code height} pixels tall. */
    private record Rendered(String dom, BufferedImage shot) {
    }

    private static Rendered inBrowser(String html, Path dir, int height) throws Exception {
        Path page = dir.resolve("report.html");
        Files.writeString(page, html);
        Chromium c = chromium.orElseThrow();
        Path png = dir.resolve("report.png");
        String dom = c.dumpDomAndScreenshot(page, Files.createDirectory(dir.resolve("profile")), png, 1100, height);
        return new Rendered(dom, ImageIO.read(png.toFile()));
    }

    private static List<String> problemsInBrowser(String html, Path dir) throws Exception {
        Rendered r = inBrowser(html, dir, PAGE_HEIGHT);
        return RenderedReport.problems(r.dom(), r.shot(), HPAS);
    }

    @Test
    void theChartRendersWithOneSeriesPerHpaSpecLabelledAxesAndTheSummaryTable(@TempDir Path dir) throws Exception {
        assumeTrue(chromium.isPresent(), "chromium is not installed here (apt-get install chromium; .ci/run installs it)");
        assertThat(problemsInBrowser(report, dir)).isEmpty();
    }

    @Test
    void aBrokenReportIsCaught(@TempDir Path dir) throws Exception {
        assumeTrue(chromium.isPresent(), "chromium is not installed here (apt-get install chromium; .ci/run installs it)");
        String broken = report
                .replaceFirst("(id=\"series-replicas-1\"[^>]*\\bd=\")[^\"]*\"", "$1M0 0\"")
                .replaceFirst("<text id=\"x-axis-label\"[^>]*>[^<]*</text>", "")
                .replace("<tr class=\"hpa-row\" data-hpa=\"headroom\">", "<tr>");

        broken = broken
                .replaceFirst("(<g id=\"decisions-0-tolerance-band\" class=\"tolerance-band\">).*?</g>", "$1</g>")
                .replaceFirst("(id=\"decisions-1-proposal\"[^>]*\\bd=\")[^\"]*\"", "$1M0 0\"")
                .replaceFirst("<li class=\"scale-delays\" data-hpa=\"tight\">", "<li>");

        List<String> problems = problemsInBrowser(broken, dir);
        assertThat(problems).hasSize(7).contains(
                "the replicas series of headroom has no line: d=\"M0 0\"",
                "axis label x-axis-label missing or not \"time (...\"",
                "summary rows [tight], expected [tight, headroom]",
                "scale delays of [headroom], expected [tight, headroom]",
                "the decision chart of tight shades no tolerance band",
                "the decision chart of headroom has no proposal line");
        // only the legend's line and the table's swatch are left in headroom's colour
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("the replicas line of headroom was painted over "));
    }

    /** Two identical specs and one whose every sync fails (no memory request to compute a utilization from). */
    static final String IDENTICAL_AND_FAILING = """
            name: identical-and-failing
            duration: 10m
            workload:
              replicas: 2
              containers: [{name: shop, requests: {cpu: 250m}}]
              readyAfter: 30s
              capacity: 300
            load: {unit: millicores, interpolation: linear, points: [[0s, 400], [2m, 3000], [5m, 3000], [6m, 400]]}
            hpas:
            - {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: same-a}, spec: {%1$s}}
            - {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: same-b}, spec: {%1$s}}
            - apiVersion: autoscaling/v2
              kind: HorizontalPodAutoscaler
              metadata: {name: memory}
              spec:
                scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shop}
                minReplicas: 2
                maxReplicas: 20
                metrics: [{type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 60}}}]
            """.formatted("scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shop}, minReplicas: 2, maxReplicas: 20, "
            + "metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]");

    /** A spec's line over the plot shows in this many pixel columns at least; its legend entry, swatch and markers cover about 120. */
    static final int SHOWS_THROUGH_COLUMNS = 180;

    @Test
    void identicalSpecsStayDistinguishableAndASpecWhoseSyncsFailShowsItsError(@TempDir Path dir) throws Exception {
        assumeTrue(chromium.isPresent(), "chromium is not installed here (apt-get install chromium; .ci/run installs it)");
        SimulationResult result = Simulation.run(new ScenarioReader().parse(IDENTICAL_AND_FAILING, "identical", null));
        assertThat(result.timelineOf("same-a")).extracting(r -> r.replicas())
                .isEqualTo(result.timelineOf("same-b").stream().map(r -> r.replicas()).toList()); // the premise: identical lines
        Rendered rendered = inBrowser(ReportPage.render(result), dir, 1000);
        String dom = rendered.dom();
        BufferedImage shot = rendered.shot();

        assertThat(RenderedReport.decisionProblems(dom, List.of("same-a", "same-b", "memory"))).isEmpty();
        // the same path, told apart by its dash pattern and its markers; the first line shows through the second's gaps
        String a = RenderedReport.pathData(dom, "series-replicas-0", "same-a");
        assertThat(a).isNotNull().isEqualTo(RenderedReport.pathData(dom, "series-replicas-1", "same-b"));
        assertThat(RenderedReport.element(dom, "<path id=\"series-replicas-1\"", "/>")).contains("stroke-dasharray=\"12 5\"");
        assertThat(RenderedReport.element(dom, "<g class=\"change-markers\" data-hpa=\"same-a\">", "</g>")).contains("<circle");
        assertThat(RenderedReport.element(dom, "<g class=\"change-markers\" data-hpa=\"same-b\">", "</g>")).contains("<rect").doesNotContain("<circle");
        assertThat(RenderedReport.columnsPainted(shot, SvgChart.color(0))).as("same-a's colour under same-b's dashes").isGreaterThan(SHOWS_THROUGH_COLUMNS);
        assertThat(RenderedReport.columnsPainted(shot, SvgChart.color(1))).as("same-b's colour").isGreaterThan(RenderedReport.MIN_LINE_COLUMNS);
        // every sync of "memory" failed: the report says why, in words
        assertThat(RenderedReport.element(dom, "<div class=\"sync-errors\" data-hpa=\"memory\">", "</div>"))
                .contains("41 of 41 syncs ended with an error:").contains("<b>FailedGetResourceMetric</b>")
                .contains("missing request for memory in container shop").contains("(41 syncs, first at 0s, last at 10m)");
        assertThat(dom).doesNotContain("<div class=\"sync-errors\" data-hpa=\"same-a\">");
    }
}
