package io.hpacontroller.sim;

import io.hpacontroller.sim.report.SimulationOutput;
import io.hpacontroller.sim.report.SummaryCsv;
import io.hpacontroller.sim.scenario.MetricsPipeline;
import io.hpacontroller.sim.scenario.Scenario;
import io.hpacontroller.sim.scenario.ScenarioException;
import io.hpacontroller.sim.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each HPA spec of a scenario with its own controller flags, metrics pipelines and workload start-up; summary.csv. */
class PerSpecSetupTest {

    private static final String SCENARIO = """
            duration: 4m
            controller: {horizontal-pod-autoscaler-tolerance: 0.1}
            workload:
              replicas: 2
              containers: [{name: web, requests: {cpu: 100m}}]
              readyAfter: 40s
              capacity: 100
            load:
              points: [[0, 100], [30s, 1000]]
            hpas:
            - %s
            - hpa: %s
              controller: {horizontal-pod-autoscaler-sync-period: 5s, horizontal-pod-autoscaler-tolerance: 0.02}
              metrics: {resource: {scrapeInterval: 5s, delay: 2s}}
              workload: {readyAfter: 10s}
            """;

    private static String hpa(String name) {
        return "{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: " + name + "}, spec: {scaleTargetRef:"
                + " {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 2, maxReplicas: 20, metrics: [{type: Resource,"
                + " resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]}}";
    }

    private static Scenario parse(String yaml) throws ScenarioException {
        return new ScenarioReader().parse(yaml, "test", null);
    }

    @Test
    void anEntryWithHpaOverridesWhatItNamesForThatSpecOnly() throws ScenarioException {
        Scenario s = parse(SCENARIO.formatted(hpa("upstream"), hpa("faster")));
        assertThat(s.hpas()).extracting(h -> h.getMetadata().getName()).containsExactly("upstream", "faster");
        Scenario.SpecSetup upstream = s.setups().get(0);
        Scenario.SpecSetup faster = s.setups().get(1);
        assertThat(upstream.controller()).isEqualTo(s.controller());
        assertThat(upstream.workload()).isEqualTo(s.workload());
        assertThat(upstream.overrides()).isEmpty();
        assertThat(faster.controller().syncPeriodMillis()).isEqualTo(5_000);
        assertThat(faster.controller().config().tolerance()).isEqualTo(0.02);
        assertThat(faster.controller().config().downscaleStabilization()).isEqualTo(Duration.ofMinutes(5));
        assertThat(faster.resourceMetrics()).isEqualTo(new MetricsPipeline(5_000, 15_000, 2_000, 0));
        assertThat(faster.customMetrics()).isEqualTo(s.customMetrics());
        assertThat(faster.workload().readyAfterMillis()).isEqualTo(10_000);
        assertThat(faster.workload().capacity()).isEqualTo(100.0);
        assertThat(faster.overrides()).containsExactly("horizontal-pod-autoscaler-sync-period 5s", "horizontal-pod-autoscaler-tolerance 0.02",
                "resource metrics scrapeInterval 5s", "resource metrics delay 2s", "readyAfter 10s");
    }

    @Test
    void whatASpecMayNotChangeIsRefusedWithItsPlace() {
        assertThatThrownBy(() -> parse(SCENARIO.formatted(hpa("a"), hpa("b")).replace("workload: {readyAfter: 10s}", "workload: {replicas: 3}")))
                .isInstanceOf(ScenarioException.class)
                .hasMessage("hpas[1].workload.replicas: unknown key (known keys: readyAfter, startedAfter, startupCpu)");
        assertThatThrownBy(() -> parse(SCENARIO.formatted(hpa("a"), hpa("b")).replace("metrics: {resource:", "metric: {resource:")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageStartingWith("hpas[1].metric: unknown key (known keys: controller, hpa, metrics, workload)");
    }

    @Test
    void eachSpecRunsWithItsOwnSetupOnTheSameDemand(@TempDir Path dir) throws ScenarioException, IOException {
        SimulationOutput.Written written = SimulationOutput.run(parse(SCENARIO.formatted(hpa("upstream"), hpa("faster"))), dir);
        SimulationResult r = written.result();
        HpaSummary upstream = r.summaries().get(0);
        HpaSummary faster = r.summaries().get(1);
        assertThat(upstream.syncs()).isEqualTo(4 * 60 / 15 + 1);
        assertThat(faster.syncs()).isEqualTo(4 * 60 / 5 + 1);
        assertThat(faster.firstScaleUpMillis()).isLessThan(upstream.firstScaleUpMillis());
        assertThat(faster.overloadMillis()).isLessThan(upstream.overloadMillis());

        assertThat(written.files()).contains(dir.resolve("summary.csv"));
        List<String> csv = Files.readAllLines(dir.resolve(SummaryCsv.FILE));
        assertThat(csv.get(0)).startsWith("hpa,overload_seconds,replica_seconds,replica_changes,peak_replicas,first_scale_up_seconds");
        assertThat(csv).hasSize(3);
        assertThat(csv.get(1)).isEqualTo("upstream," + upstream.overloadMillis() / 1000 + "," + Math.round(upstream.replicaSeconds()) + ","
                + upstream.replicaChanges() + "," + upstream.peakReplicas() + "," + upstream.firstScaleUpMillis() / 1000 + ","
                + upstream.coveredMillis() / 1000 + "," + upstream.finalReplicas() + "," + upstream.syncs() + ",0,");
        assertThat(csv.get(2)).startsWith("faster,").endsWith(",horizontal-pod-autoscaler-sync-period 5s; horizontal-pod-autoscaler-tolerance 0.02;"
                + " resource metrics scrapeInterval 5s; resource metrics delay 2s; readyAfter 10s");
    }

    @Test
    void theFixesOfSeed004SideBySide() throws ScenarioException {
        SimulationResult r = Examples.run("seed-004-fixes");
        java.util.Map<String, HpaSummary> s = new java.util.HashMap<>();
        r.summaries().forEach(h -> s.put(h.hpa(), h));
        HpaSummary upstream = s.get("upstream");
        assertThat(upstream.firstScaleUpMillis()).isEqualTo(26_000);
        assertThat(upstream.overloadMillis()).isEqualTo(56_000);
        // the metrics pipeline is the first delay: a faster one scales up 15 s sooner
        assertThat(s.get("faster-metrics").firstScaleUpMillis()).isEqualTo(11_000);
        assertThat(s.get("faster-metrics").overloadMillis()).isEqualTo(41_000);
        // a faster sync or a finer tolerance changes nothing while the metrics lag: the data is not there yet
        assertThat(s.get("sync-5s").overloadMillis()).isEqualTo(56_000);
        assertThat(s.get("tolerance").overloadMillis()).isEqualTo(56_000);
        // behavior reaches maxReplicas in one step, but the pods still take 30 s to be Ready
        assertThat(s.get("behavior").replicaChanges()).isEqualTo(1);
        assertThat(s.get("behavior").overloadMillis()).isEqualTo(56_000);
        // faster readiness shortens the overload by what it saves
        assertThat(s.get("fast-readiness").overloadMillis()).isEqualTo(31_000);
        // the scheduled rule acts before the load: only the pods' start-up is left
        assertThat(s.get("scheduled").firstScaleUpMillis()).isEqualTo(-1);
        assertThat(s.get("scheduled").overloadMillis()).isEqualTo(11_000);
        assertThat(r.violations()).isEmpty();
    }
}
