package io.hpacontroller.sim;

import io.hpacontroller.sim.SimulationResult.ReplicaChange;
import io.hpacontroller.sim.scenario.ScenarioException;
import io.hpacontroller.sim.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shipped examples whose outcome is known from the upstream rules. */
class KnownOutcomesTest {

    @Test
    void legacyScaleUpIsCappedAtDoublingPerSync() throws ScenarioException {
        SimulationResult r = Examples.run("legacy-doubling-cap");
        List<ReplicaChange> changes = r.replicaChanges("api");

        assertThat(changes).extracting(ReplicaChange::to).containsExactly(4, 8, 16, 20);
        for (int i = 1; i < changes.size(); i++) {
            assertThat(changes.get(i).timeMillis() - changes.get(i - 1).timeMillis()).isEqualTo(15_000);
        }
        // each step wanted more than it got: the limit, not the metric, set the pace
        for (ReplicaChange c : changes.subList(0, 3)) {
            assertThat(c.reason()).endsWith("(ScalingLimited: ScaleUpLimit)");
            assertThat(rowAt(r, "api", c.timeMillis()).proposedReplicas()).isGreaterThan(c.to());
        }
        assertThat(changes.get(3).reason()).endsWith("(ScalingLimited: TooManyReplicas)");
    }

    @Test
    void theDownscaleStabilizationWindowDelaysTheScaleDownBy300Seconds() throws ScenarioException {
        SimulationResult r = Examples.run("downscale-stabilization");
        ReplicaChange held = r.replicaChanges("default-window").get(0);
        ReplicaChange prompt = r.replicaChanges("no-window").get(0);
        long lastHighRecommendation = r.timelineOf("default-window").stream()
                .filter(row -> row.proposedReplicas() >= 8).mapToLong(TimelineRow::timeMillis).max().orElseThrow();

        assertThat(held.to()).isLessThan(held.from());
        assertThat(held.timeMillis() - lastHighRecommendation).as("a recommendation exactly 300 s old is outside the window")
                .isEqualTo(300_000);
        assertThat(prompt.timeMillis() - lastHighRecommendation).isLessThanOrEqualTo(30_000);
        assertThat(r.timelineOf("default-window").stream().filter(row -> row.timeMillis() > lastHighRecommendation
                && row.timeMillis() < held.timeMillis())).allSatisfy(row -> assertThat(row.reason()).startsWith("ScaleDownStabilized"));
    }

    @Test
    void behaviorPoliciesLimitTheRateBothWays() throws ScenarioException {
        SimulationResult r = Examples.run("behavior-policies");
        List<ReplicaChange> changes = r.replicaChanges("worker");
        List<ReplicaChange> ups = changes.stream().filter(c -> c.to() > c.from()).toList();
        List<ReplicaChange> downs = changes.stream().filter(c -> c.to() < c.from()).toList();

        assertThat(ups).extracting(ReplicaChange::to).containsExactly(4, 6, 8, 10, 12);
        for (ReplicaChange c : ups) {
            long addedInWindow = ups.stream().filter(o -> o.timeMillis() > c.timeMillis() - 60_000 && o.timeMillis() <= c.timeMillis())
                    .mapToInt(o -> o.to() - o.from()).sum();
            assertThat(addedInWindow).as("added in the 60 s up to %ss", Examples.s(c.timeMillis())).isLessThanOrEqualTo(2);
        }
        assertThat(downs).isNotEmpty();
        for (int i = 0; i < downs.size(); i++) {
            ReplicaChange c = downs.get(i);
            assertThat(c.to()).as("a quarter at most per minute").isGreaterThanOrEqualTo((int) (c.from() * 0.75));
            if (i > 0) {
                assertThat(c.timeMillis() - downs.get(i - 1).timeMillis()).isGreaterThanOrEqualTo(60_000);
            }
        }
        assertThat(downs.get(downs.size() - 1).to()).isEqualTo(2);
        assertThat(r.timelineOf("worker")).anySatisfy(row -> assertThat(row.reason()).contains("ScalingLimited: ScaleUpLimit"));
        assertThat(r.timelineOf("worker")).anySatisfy(row -> assertThat(row.reason()).contains("ScalingLimited: ScaleDownLimit"));
    }

    @Test
    void selectPolicyDisabledNeverScalesDown() throws ScenarioException {
        SimulationResult r = Examples.run("select-policy-disabled");
        List<ReplicaChange> changes = r.replicaChanges("batch");

        assertThat(changes).isNotEmpty().allSatisfy(c -> assertThat(c.to()).isGreaterThan(c.from()));
        assertThat(r.summaries().get(0).finalReplicas()).isEqualTo(10);
        // after the demand fell, the core wanted fewer and the policy said no
        List<TimelineRow> late = r.timelineOf("batch").stream().filter(row -> row.timeMillis() > 7 * 60_000).toList();
        assertThat(late).isNotEmpty().allSatisfy(row -> {
            assertThat(row.proposedReplicas()).isLessThan(row.replicas());
            assertThat(row.reason()).endsWith("(ScalingLimited: ScaleDownLimit)");
        });
    }

    @Test
    void withinTheToleranceBandNothingScales() throws ScenarioException {
        SimulationResult r = Examples.run("tolerance-band");
        List<ReplicaChange> changes = r.replicaChanges("svc");
        List<TimelineRow> band = r.timelineOf("svc").stream().filter(row -> row.timeMillis() < 8 * 60_000).toList();

        // the usage wandered from 92 % to 109 % of the target: never outside 10 %, never a scale
        assertThat(band).extracting(row -> Integer.parseInt(row.metricValue())).allSatisfy(u -> assertThat(u).isBetween(45, 55));
        assertThat(band.stream().mapToInt(row -> Integer.parseInt(row.metricValue())).max().orElseThrow()).isGreaterThan(52);
        assertThat(band.stream().mapToInt(row -> Integer.parseInt(row.metricValue())).min().orElseThrow()).isLessThan(48);
        assertThat(changes).hasSize(1);
        assertThat(changes.get(0).timeMillis()).isGreaterThan(8 * 60_000);
        assertThat(changes.get(0).to()).isEqualTo(5);
    }

    @Test
    void unreadyPodsDuringStartUpDampTheScaleUp() throws ScenarioException {
        SimulationResult r = Examples.run("unready-startup");
        List<TimelineRow> rows = r.timelineOf("jvm");

        // 8 pods serve the demand at the target; the starting pods' 500m of CPU never pushes it further
        assertThat(r.summaries().get(0).peakReplicas()).isEqualTo(8);
        List<TimelineRow> starting = rows.stream().filter(row -> row.replicas() == 8 && row.readyPods() < row.pods()).toList();
        assertThat(starting).hasSizeGreaterThanOrEqualTo(2).allSatisfy(row -> {
            assertThat(Integer.parseInt(row.metricValue())).as("the Ready pods run hot").isGreaterThanOrEqualTo(150);
            assertThat(row.proposedReplicas()).as("yet the unready pods count as idle").isEqualTo(8);
        });
    }

    @Test
    void twoSpecsAreComparedOnTheSameTrace() throws ScenarioException {
        SimulationResult r = Examples.run("compare-two-specs");
        HpaSummary tight = r.summaries().get(0);
        HpaSummary headroom = r.summaries().get(1);

        assertThat(tight.hpa()).isEqualTo("tight");
        assertThat(headroom.hpa()).isEqualTo("headroom");
        assertThat(r.timelineOf("tight")).hasSameSizeAs(r.timelineOf("headroom")).hasSize(161);
        assertThat(r.timelineOf("tight")).extracting(TimelineRow::demand)
                .containsExactlyElementsOf(r.timelineOf("headroom").stream().map(TimelineRow::demand).toList());
        assertThat(tight.overloadMillis()).isGreaterThan(headroom.overloadMillis() + 60_000);
        assertThat(tight.replicaSeconds()).isLessThan(headroom.replicaSeconds());
        assertThat(r.replicas()).hasSize(2);
        assertThat(r.capacity()).hasSize(2);
    }

    @Test
    void eachPerHpaControlIsTriedOnTheSameTrace() throws ScenarioException {
        SimulationResult r = Examples.run("per-hpa-controls");
        HpaSummary byDefault = r.summaries().get(0);
        HpaSummary fast = r.summaries().get(1);
        HpaSummary slow = r.summaries().get(2);
        HpaSummary preview = r.summaries().get(3);

        assertThat(r.summaries()).extracting(HpaSummary::hpa).containsExactly("default", "fast", "slow", "preview");
        // 12 minutes: every 15 s, 5 s and 1 m from the phase 0 on
        assertThat(byDefault.syncs()).isEqualTo(49);
        assertThat(fast.syncs()).isEqualTo(145);
        assertThat(slow.syncs()).isEqualTo(13);
        // the first scale-up waits for the metrics pipeline; each later step of the climb comes a sync sooner
        assertThat(fast.firstScaleUpMillis()).isLessThanOrEqualTo(byDefault.firstScaleUpMillis());
        assertThat(slow.firstScaleUpMillis()).isGreaterThan(byDefault.firstScaleUpMillis());
        assertThat(fast.coveredMillis()).isEqualTo(104_000);
        assertThat(byDefault.coveredMillis()).isEqualTo(124_000);
        assertThat(slow.coveredMillis()).isEqualTo(199_000);
        // Preview decides as the default does on the first sync after the step, and writes nothing
        assertThat(preview.replicaChanges()).isZero();
        assertThat(preview.peakReplicas()).isEqualTo(2);
        TimelineRow firstDecision = r.timelineOf("default").stream().filter(row -> row.replicas() > 2).findFirst().orElseThrow();
        assertThat(r.timelineOf("preview")).filteredOn(row -> row.timeMillis() == firstDecision.timeMillis()).singleElement()
                .satisfies(row -> {
                    assertThat(row.desiredReplicas()).isEqualTo(firstDecision.desiredReplicas());
                    assertThat(row.replicas()).isEqualTo(2);
                });
        assertThat(r.violations()).isEmpty();
    }

    @Test
    void anInvalidControlAnnotationIsRefusedWithItsName() {
        assertThatThrownBy(() -> new ScenarioReader().parse("""
                duration: 1m
                workload: {replicas: 1, containers: [{name: a, requests: {cpu: 100m}}]}
                load: {unit: millicores, points: [[0s, 100]]}
                hpas:
                - apiVersion: autoscaling/v2
                  kind: HorizontalPodAutoscaler
                  metadata: {name: web, annotations: {autoscaling.hpa-controller.io/mode: Suspnded}}
                  spec:
                    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
                    maxReplicas: 4
                """, "bad", java.nio.file.Path.of("."))).isInstanceOf(ScenarioException.class)
                .hasMessageContaining("hpas[0].metadata.annotations")
                .hasMessageContaining("autoscaling.hpa-controller.io/mode: must be one of Auto, Preview, Suspended, got \"Suspnded\"");
    }

    @Test
    void anExternalMetricScalesToItsAverageValueAfterItsOwnDelay() throws ScenarioException {
        SimulationResult r = Examples.run("external-queue");
        HpaSummary s = r.summaries().get(0);

        assertThat(s.finalReplicas()).isEqualTo(10); // 300 messages / 30 per worker
        assertThat(s.firstScaleUpMillis()).isGreaterThanOrEqualTo(30_000); // the adapter's data is 30 s old
        assertThat(r.timelineOf("queue-worker").get(r.timelineOf("queue-worker").size() - 1).metricValue()).isEqualTo("30");
    }

    private static TimelineRow rowAt(SimulationResult r, String hpa, long time) {
        return r.timelineOf(hpa).stream().filter(row -> row.timeMillis() == time).findFirst().orElseThrow();
    }
}
