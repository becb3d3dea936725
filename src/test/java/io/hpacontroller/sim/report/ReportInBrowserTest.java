package io.hpacontroller.sim.report;

import io.hpacontroller.sim.ScenarioReader;
import io.hpacontroller.sim.Simulation;
import io.hpacontroller.sim.SimulationResult;
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

    static Optional<Chromium> chromium;
    static String report;

    @BeforeAll
    static void simulate() throws Exception {
        chromium = Chromium.find();
        SimulationResult result = Simulation.run(new ScenarioReader().read(Path.of("examples/compare-two-specs.yaml")));
        report = ReportPage.render(result);
    }

    private static List<String> problemsInBrowser(String html, Path dir) throws Exception {
        Path page = dir.resolve("report.html");
        Files.writeString(page, html);
        Chromium c = chromium.orElseThrow();
        String dom = c.dumpDom(page, Files.createDirectory(dir.resolve("profile-dom")));
        Path png = dir.resolve("report.png");
        c.screenshot(page, Files.createDirectory(dir.resolve("profile-shot")), png, 1100, 1000);
        BufferedImage shot = ImageIO.read(png.toFile());
        return RenderedReport.problems(dom, shot, HPAS);
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

        List<String> problems = problemsInBrowser(broken, dir);
        assertThat(problems).hasSize(4).contains(
                "the replicas series of headroom has no line: d=\"M0 0\"",
                "axis label x-axis-label missing or not \"time (...\"",
                "summary rows [tight], expected [tight, headroom]");
        // only the legend's line and the table's swatch are left in headroom's colour
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("the replicas line of headroom was painted over "));
    }
}
