package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.sim.scenario.Scenario;
import io.hpacontroller.sim.scenario.ScenarioException;
import io.hpacontroller.sim.scenario.ScenarioReader;
import io.hpacontroller.sim.scenario.ScenarioReaderTest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FaultsAndInvariantsTest {

    private static Scenario withFaults(String faults) throws ScenarioException {
        String yaml = """
                duration: 10m
                workload:
                  replicas: 2
                  containers: [{name: web, requests: {cpu: 100m}}]
                  capacity: 1000
                load:
                  points: [[0, 100], [1m, 1000]]
                """ + faults + ScenarioReaderTest.HPA;
        return new ScenarioReader().parse(yaml, "faults", null);
    }

    @Test
    void withoutFaultsTheScenarioScalesUp() throws ScenarioException {
        SimulationResult r = Simulation.run(withFaults(""));
        assertThat(r.summaries().get(0).finalReplicas()).isEqualTo(5);
        assertThat(r.faultsInjected()).isZero();
    }

    @Test
    void whenEveryScaleWriteFailsNothingChangesAndTheStatusSaysSo() throws ScenarioException {
        SimulationResult r = Simulation.run(withFaults("faults: {scaleWriteFailure: 1}\n"));

        assertThat(r.summaries().get(0).finalReplicas()).isEqualTo(2);
        assertThat(r.summaries().get(0).replicaChanges()).isZero();
        assertThat(r.invariantViolations()).isZero();
        assertThat(r.events()).anySatisfy(e -> {
            assertThat(e.reason()).isEqualTo("FailedRescale");
            assertThat(e.message()).contains("New size: 4").contains("injected fault");
        });
        assertThat(r.timeline()).anySatisfy(row -> assertThat(row.reason()).startsWith("FailedUpdateScale: failed to rescale"));
    }

    @Test
    void whenEveryMetricsCallFailsNothingScales() throws ScenarioException {
        SimulationResult r = Simulation.run(withFaults("faults: {metricsFailure: 1}\n"));

        assertThat(r.summaries().get(0).replicaChanges()).isZero();
        assertThat(r.summaries().get(0).syncsWithError()).isEqualTo(r.summaries().get(0).syncs());
        assertThat(r.invariantViolations()).isZero();
        assertThat(r.timeline()).allSatisfy(row -> {
            assertThat(row.reason()).startsWith("FailedGetResourceMetric: ");
            assertThat(row.metricValue()).isEmpty();
        });
    }

    @Test
    void aConflictFailsTheSyncAndALaterSyncStillScales() throws ScenarioException {
        SimulationResult r = Simulation.run(withFaults("faults: {scaleWriteConflict: 0.8, seed: 3}\n"));

        assertThat(r.faultsInjected()).isPositive();
        assertThat(r.summaries().get(0).finalReplicas()).isEqualTo(5);
        assertThat(r.invariantViolations()).isZero();
    }

    @Test
    void theSameSeedGivesTheSameRun() throws ScenarioException {
        Scenario s = withFaults("faults: {metricsFailure: 0.3, scaleWriteFailure: 0.3, seed: 11}\n");
        assertThat(Simulation.run(s).timeline()).isEqualTo(Simulation.run(s).timeline());
    }

    // ---- the checker itself must be able to fail ----

    private static HorizontalPodAutoscaler hpa(int desired, int current) {
        HorizontalPodAutoscaler h = new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withMinReplicas(2).withMaxReplicas(10).endSpec().build();
        h.setStatus(new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(current).withDesiredReplicas(desired).build());
        return h;
    }

    private static ReconcileOutcome outcome(int current, int desired, boolean rescaled) {
        DecisionTrace trace = new DecisionTrace(HpaKey.parse("default/web"), 0, current, 2, 10, List.of(), -1, null, desired, null, null, List.of(),
                null, desired, rescaled ? ReconcileOutcome.Action.SCALE_UP : ReconcileOutcome.Action.NONE, rescaled, "",
                ReconcileOutcome.ErrorKind.NONE, null, null);
        return new ReconcileOutcome(trace, null, false, List.of());
    }

    @Test
    void theCheckerCatchesAFailedWriteThatChangedReplicas() {
        Invariants inv = new Invariants();
        HorizontalPodAutoscaler h = hpa(4, 2);
        inv.check(new Invariants.Sync(15_000, h, 2, 4, outcome(2, 2, false), 1, 0, 1, 0));
        assertThat(inv.violationCount()).isGreaterThanOrEqualTo(2);
        assertThat(inv.violations()).anySatisfy(v -> assertThat(v).startsWith("t=15s web: a failed scale write changed replicas 2 -> 4"));
    }

    @Test
    void theCheckerCatchesAScaleWithoutAnyMetricAndAnEscapeFromTheBounds() {
        Invariants inv = new Invariants();
        inv.check(new Invariants.Sync(30_000, hpa(12, 3), 3, 12, outcome(3, 12, true), 2, 2, 1, 1));
        assertThat(inv.violations()).anySatisfy(v -> assertThat(v).contains("replicas left [2, 10]: 3 -> 12"))
                .anySatisfy(v -> assertThat(v).contains("although every metrics call failed"));

        Invariants steps = new Invariants();
        steps.checkStep(0, hpa(3, 3), 3, 3);
        steps.checkStep(1000, hpa(3, 3), 1, 1);
        assertThat(steps.violations()).containsExactly("t=1s web: 1 replicas, outside [2, 10] after having been inside");
    }

    @Test
    void aCleanSyncPassesEveryCheck() {
        Invariants inv = new Invariants();
        HorizontalPodAutoscaler h = hpa(3, 3);
        h.getStatus().setConditions(List.of());
        inv.check(new Invariants.Sync(15_000, h, 3, 3, outcome(3, 3, false), 1, 0, 0, 0));
        assertThat(inv.violationCount()).isZero();
        assertThat(inv.checks()).isPositive();
    }
}
