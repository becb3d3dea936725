package io.hpacontroller.sim.report;

import io.hpacontroller.sim.Simulation;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** report.html's text: what delayed each step at the top, each spec's own settings beside its results, quantities as Kubernetes writes them. */
class ReportPageTest {

    private static String report(String example) throws Exception {
        return ReportPage.render(Simulation.run(new ScenarioReader().read(Path.of("examples", example + ".yaml"))));
    }

    @Test
    void theTopOfTheReportSaysWhatDelayedEachScaleStepOfSeed004() throws Exception {
        String html = report("seed-004-burst");

        String line = RenderedReport.element(html, "<li class=\"scale-delays\" data-hpa=\"nginx-deployment\">", "</li>");
        assertThat(line).contains("2 \u2192 4 at 56s, 26s after the demand asked for it: waiting for the sync 11s, metrics lag 15s; "
                        + "4 \u2192 8 at 1m11s, 41s after the demand asked for it: waiting for the sync 11s, metrics lag 15s, the scale-up limit 15s; "
                        + "8 \u2192 10 at 1m26s, 56s after the demand asked for it: waiting for the sync 11s, metrics lag 15s, the scale-up limit 30s; "
                        + "10 \u2192 2 at 5m56s, 5m after the demand asked for it: metrics lag 15s, the scale-down stabilization window 4m45s.");
        // above the chart and the summary, not in the per-spec tables far below
        assertThat(html.indexOf("<ul id=\"scale-delays\">")).isLessThan(html.indexOf("<svg id=\"chart\"")).isPositive();
        // and each change in the spec's table says it too
        assertThat(RenderedReport.element(html, "<table class=\"changes\" data-hpa=\"nginx-deployment\">", "</table>"))
                .contains("<td class=\"delayed-by\">41s: waiting for the sync 11s, metrics lag 15s, the scale-up limit 15s</td>");
    }

    @Test
    void eachSpecsOwnSettingsStandBesideItsResultsAndInTheScenarioTable() throws Exception {
        String html = report("seed-004-fixes");

        assertThat(row(html, "upstream")).contains("<td class=\"own-settings\">the scenario's</td>");
        assertThat(row(html, "sync-5s")).contains("<td class=\"own-settings\">sync period / first sync 5s / 1s</td>");
        assertThat(row(html, "faster-metrics")).contains("metrics-server (Resource metrics) scrape every 5s (phase 4s), window 5s, delay 2s");
        assertThat(row(html, "tolerance")).contains("<td class=\"own-settings\">tolerance 0.01</td>");
        assertThat(row(html, "fast-readiness")).contains("<td class=\"own-settings\">pods Running after 5s, Ready after 5s</td>");
        // the scenario's table no longer reads as if every spec ran with its settings
        assertThat(html).contains("<tr><th>sync period / first sync</th><td>15s / 11s; sync-5s: 5s / 1s</td></tr>")
                .contains("<tr><th>pods</th><td>Running after 5s, Ready after 30s; fast-readiness: Running after 5s, Ready after 5s</td></tr>");
        assertThat(RenderedReport.element(html, "<section class=\"decisions\" data-hpa=\"sync-5s\">", "</section>"))
                .contains("<p class=\"settings\">Runs with: sync period / first sync 5s / 1s; tolerance 0.1;");
        assertThat(RenderedReport.element(html, "<li class=\"scale-delays\" data-hpa=\"scheduled\">", "</li>"))
                .contains("2 \u2192 10 at 11s, not asked for by the demand (a scheduled rule).");
    }

    private static String row(String html, String hpa) {
        return RenderedReport.element(html, "<tr class=\"hpa-row\" data-hpa=\"" + hpa + "\">", "</tr>");
    }

    @Test
    void quantitiesReadAsKubernetesWritesThem() throws Exception {
        SimulationResult result = Simulation.run(new ScenarioReader().parse("""
                duration: 1m
                workload:
                  containers:
                  - {name: app, requests: {cpu: 0.2, memory: 256Mi}}
                  - {name: sidecar, requests: {cpu: 50m, memory: "268435456"}}
                  startupCpu: {cpu: "0.3", duration: 30s}
                load: {points: [[0, 100]]}
                hpas:
                - apiVersion: autoscaling/v2
                  kind: HorizontalPodAutoscaler
                  metadata: {name: web}
                  spec:
                    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app}
                    maxReplicas: 5
                    metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]
                """, "quantities", null));

        String html = ReportPage.render(result);

        // a request written 256Mi is stored as 256Mi, one written 268435456 as 268435456 (kubectl get -o yaml shows them so)
        assertThat(html).contains("containers app (requests cpu: 200m, memory: 256Mi), sidecar (requests cpu: 50m, memory: 268435456)")
                .contains("start-up CPU 300m for 30s")
                .doesNotContain("268435456000");
    }
}
