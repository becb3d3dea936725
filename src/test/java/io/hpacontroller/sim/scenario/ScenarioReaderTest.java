package io.hpacontroller.sim.scenario;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public class ScenarioReaderTest {

    public static final String HPA = """
            hpas:
            - apiVersion: autoscaling/v2
              kind: HorizontalPodAutoscaler
              metadata: {name: web}
              spec:
                scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
                minReplicas: 1
                maxReplicas: 5
                metrics:
                - type: Resource
                  resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
            """;

    static final String MINIMAL = """
            duration: 10m
            workload:
              containers: [{name: web, requests: {cpu: 100m}}]
            load:
              points: [[0, 100]]
            """ + HPA;

    private final ScenarioReader reader = new ScenarioReader();

    private Scenario parse(String yaml) throws ScenarioException {
        return reader.parse(yaml, "test", null);
    }

    private String error(String yaml) {
        return assertThatThrownBy(() -> parse(yaml)).isInstanceOf(ScenarioException.class).actual().getMessage();
    }

    @Test
    void aMinimalScenarioGetsTheDocumentedDefaults() throws ScenarioException {
        Scenario s = parse(MINIMAL);

        assertThat(s.name()).isEqualTo("test");
        assertThat(s.durationMillis()).isEqualTo(600_000);
        assertThat(s.stepMillis()).isEqualTo(1000);
        assertThat(s.controller().syncPeriodMillis()).isEqualTo(15_000);
        assertThat(s.controller().syncPhaseMillis()).isZero();
        assertThat(s.controller().config().tolerance()).isEqualTo(0.1);
        assertThat(s.controller().config().downscaleStabilization()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.controller().config().cpuInitializationPeriod()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.controller().config().initialReadinessDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.workload().replicas()).isEqualTo(1);
        assertThat(s.workload().labels()).containsEntry("app", "workload");
        assertThat(s.workload().readyAfterMillis()).isEqualTo(5000);
        assertThat(s.workload().capacity()).isNull();
        assertThat(s.workload().containers().get(0).requests().get("cpu")).hasValue(100);
        assertThat(s.resourceMetrics()).isEqualTo(new MetricsPipeline(15_000, 15_000, 10_000, 0));
        assertThat(s.customMetrics()).isEqualTo(new MetricsPipeline(30_000, 30_000, 30_000, 0));
        assertThat(s.load().interpolation()).isEqualTo(LoadTrace.Interpolation.STEP);
        assertThat(s.faults().any()).isFalse();
        assertThat(s.hpas()).hasSize(1);
        assertThat(s.hpas().get(0)).isInstanceOf(io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler.class);
        assertThat(s.hpas().get(0).getMetadata().getNamespace()).isEqualTo("default");
        assertThat(s.hpas().get(0).getSpec().getMetrics().get(0).getResource().getTarget().getAverageUtilization()).isEqualTo(50);
    }

    @Test
    void controllerFlagsUseTheUpstreamFlagNames() throws ScenarioException {
        Scenario s = parse(MINIMAL + """
                controller:
                  horizontal-pod-autoscaler-sync-period: 30s
                  syncPhase: 7s
                  horizontal-pod-autoscaler-tolerance: 0.05
                  horizontal-pod-autoscaler-downscale-stabilization: 1m
                  horizontal-pod-autoscaler-cpu-initialization-period: 2m
                  horizontal-pod-autoscaler-initial-readiness-delay: 10s
                  HPAScaleToZero: false
                """);
        assertThat(s.controller().syncPeriodMillis()).isEqualTo(30_000);
        assertThat(s.controller().syncPhaseMillis()).isEqualTo(7_000);
        assertThat(s.controller().config().tolerance()).isEqualTo(0.05);
        assertThat(s.controller().config().downscaleStabilization()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.controller().config().cpuInitializationPeriod()).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.controller().config().initialReadinessDelay()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.controller().config().scaleToZeroEnabled()).isFalse();
    }

    @Test
    void pointsMayBePairsOrMappingsAndAreSortedByTime() throws ScenarioException {
        Scenario s = parse(MINIMAL.replace("points: [[0, 100]]", "points: [[1m, 300], {time: 0s, demand: 100}, [30, 200]]"));
        assertThat(s.load().points()).extracting(LoadTrace.Point::timeMillis).containsExactly(0L, 30_000L, 60_000L);
        assertThat(s.load().points()).extracting(LoadTrace.Point::demand).containsExactly(100.0, 200.0, 300.0);
    }

    @Test
    void aCsvTraceIsReadRelativeToTheScenarioFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("trace.csv"), "# comment\ntime,demand\n0,10\n60, 20\n\n120;5\n");
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, MINIMAL.replace("points: [[0, 100]]", "csv: trace.csv\n  interpolation: linear"));

        Scenario s = reader.read(file);

        assertThat(s.name()).isEqualTo("s");
        assertThat(s.load().points()).containsExactly(new LoadTrace.Point(0, 10), new LoadTrace.Point(60_000, 20), new LoadTrace.Point(120_000, 5));
        assertThat(s.load().interpolation()).isEqualTo(LoadTrace.Interpolation.LINEAR);
    }

    @Test
    void errorsNameTheKeyAndTheProblem() {
        assertThat(error(MINIMAL.replace("duration: 10m\n", ""))).isEqualTo("duration: required (how long to simulate, e.g. 10m)");
        assertThat(error(MINIMAL.replace("duration: 10m", "duration: 10 minutes")))
                .isEqualTo("duration: expected a duration such as 15s, 5m, 1h or a number of seconds, got \"10 minutes\"");
        assertThat(error(MINIMAL + "controler: {}\n")).startsWith("controler: unknown key (known keys: controller, description, duration,");
        assertThat(error(MINIMAL.replace("requests: {cpu: 100m}", "requests: {cpu: lots}")))
                .isEqualTo("workload.containers[0].requests.cpu: malformed quantity \"lots\" (expected e.g. 100m, 0.5, 128Mi)");
        assertThat(error(MINIMAL.replace("points: [[0, 100]]", "points: [[0, 100, 3]]")))
                .isEqualTo("load.points[0]: expected [time, demand], e.g. [30s, 1000]");
        assertThat(error(MINIMAL.replace("points: [[0, 100]]", "points: [[0, -1]]")))
                .isEqualTo("load.points[0][1]: demand must not be negative, got -1.0");
        assertThat(error(MINIMAL.replace("points: [[0, 100]]", "csv: x.csv\n  points: [[0, 1]]")))
                .startsWith("load: give exactly one of points");
        assertThat(error(MINIMAL.replace("apiVersion: autoscaling/v2", "apiVersion: autoscaling/v1")))
                .isEqualTo("hpas[0]: expected apiVersion autoscaling/v2 and kind HorizontalPodAutoscaler, got autoscaling/v1 HorizontalPodAutoscaler");
        assertThat(error(MINIMAL + HPA.replace("hpas:\n", ""))).isEqualTo("hpas[1].metadata.name: two HPAs are named \"web\"; give each spec its own name");
        assertThat(error(MINIMAL.replace("maxReplicas: 5", "maxReplicas: 2147483647")))
                .isEqualTo("hpas[0].spec.maxReplicas: the simulator models at most 5000 pods per workload, got 2147483647");
        assertThat(error(MINIMAL.replace("minReplicas: 1", "minReplicas: 6")))
                .isEqualTo("hpas[0].spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`");
        assertThat(error(MINIMAL + "faults: {metricsFailure: 2}\n")).isEqualTo("faults.metricsFailure: must be between 0.0 and 1.0, got 2.0");
        assertThat(error(MINIMAL.replace("containers: [{name: web, requests: {cpu: 100m}}]", "containers: []")))
                .isEqualTo("workload.containers: at least one container is required");
        assertThat(error(MINIMAL + "workload: {}\n")).startsWith("not valid YAML:");
        assertThat(error("- just\n- a list\n")).startsWith("expected a mapping");
        assertThat(error("duration: [1, 2\n"))
                .isEqualTo("not valid YAML: while parsing a flow sequence: expected ',' or ']', but got <stream end> (at line 2, column 1)");
        assertThat(error("a:\n  kind: x\n  kind: y\n")).isEqualTo("not valid YAML: while constructing a mapping: found duplicate key kind (at line 3, column 3)");
    }

    @Test
    void aBadCsvLineIsReportedWithItsLineNumber(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("t.csv"), "time,demand\n0,10\n60,lots\n");
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, MINIMAL.replace("points: [[0, 100]]", "csv: t.csv"));

        assertThatThrownBy(() -> reader.read(file)).isInstanceOf(ScenarioException.class)
                .hasMessage(file + ": load.csv: t.csv line 3: expected a time (seconds) and a demand (a number, not negative), got \"60,lots\"");
    }

    @Test
    void aMissingFileIsAScenarioError(@TempDir Path dir) {
        assertThatThrownBy(() -> reader.read(dir.resolve("nope.yaml"))).isInstanceOf(ScenarioException.class)
                .hasMessageContaining("nope.yaml: cannot read the scenario file (NoSuchFileException");
    }

    @Test
    void everyShippedExampleParses() throws Exception {
        try (var files = Files.list(Path.of("examples"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
                assertThat(reader.read(f).hpas()).as(f.toString()).isNotEmpty();
            }
        }
    }
}
