package io.hpacontroller.core.trace;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicyBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.reconcile.ControllerConfig;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/** The one-sentence answer {@code explain} prints first, for the situations users ask about. */
class DecisionSummaryTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long NOW_MILLIS = NOW.toEpochMilli();

    private final FakeCluster cluster = new FakeCluster();
    private final HistoryStore histories = new HistoryStore();

    private DecisionTrace sync(HorizontalPodAutoscaler hpa, Instant at) {
        ReconcileOutcome o = cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(at, ZoneOffset.UTC)).reconcile(hpa);
        hpa.setStatus(o.status());
        return o.trace();
    }

    /** {@code count} ready pods with a 1-cpu request, each using {@code milli}. */
    private void pods(int count, long milli) {
        cluster.scale = new ScaleTarget(count, count, "app=web", "1");
        cluster.pods = Pods.ready(count, 1000, NOW_MILLIS);
        long[] usage = new long[count];
        java.util.Arrays.fill(usage, milli);
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, usage);
    }

    @Test
    void scaleUp() {
        pods(3, 1000);
        DecisionTrace t = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)), NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo(
                "scaling up from 3 to 6: cpu resource utilization (percentage of request) 100% against a target of 50% recommends 6");
    }

    @Test
    void heldByTheScaleDownWindow() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        pods(8, 500);
        sync(hpa, NOW);
        pods(8, 150);
        DecisionTrace t = sync(hpa, NOW.plusSeconds(130));
        assertThat(DecisionSummary.of(t)).isEqualTo(
                "holding at 8: the 5m scale-down window keeps the recommendation of 8 made 2m10s ago; without it: 3");
    }

    @Test
    void limitedByAScaleUpPolicy() {
        pods(3, 1000);
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        hpa.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleUp()
                .withPolicies(new HPAScalingPolicyBuilder().withType("Pods").withValue(2).withPeriodSeconds(60).build()).endScaleUp().build());
        DecisionTrace t = sync(hpa, NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo("scaling up from 3 to 5: the scale-up limit (Pods 2 per 1m, selectPolicy Max, "
                + "0 scale events in the period) allows 5 (the metrics recommend 6); "
                + "cpu resource utilization (percentage of request) 100% against a target of 50% recommends 6");
    }

    @Test
    void everyMetricFailed() {
        pods(3, 500);
        cluster.failingMetrics.add("cpu");
        DecisionTrace t = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)), NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo("holding at 3: every metric failed: Resource cpu failed (failed to get cpu utilization: "
                + "unable to get metrics for resource cpu: the server is currently unable to handle the request (get cpu))");
    }

    @Test
    void aFailedMetricBlocksAScaleDown() {
        pods(3, 100);
        cluster.failingMetrics.add("qps");
        DecisionTrace t = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50), Specs.podsAverage("qps", "10")), NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo("holding at 3: the other metrics recommend 1, but Pods qps failed (unable to get metric qps: "
                + "the server is currently unable to handle the request (get qps)), and a failed metric blocks a scale-down");
    }

    @Test
    void withinTheTolerance() {
        pods(3, 520);
        DecisionTrace t = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)), NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo("holding at 3: cpu resource utilization (percentage of request) 52% against a target of 50%: "
                + "the ratio 1.04 is within the tolerance of 0.1 (flag)");
    }

    @Test
    void withinAToleranceTheBehaviorSets() {
        pods(3, 700);
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        hpa.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleUp().withTolerance(new Quantity("0.5")).endScaleUp().build());
        DecisionTrace t = sync(hpa, NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo("holding at 3: cpu resource utilization (percentage of request) 70% against a target of 50%: "
                + "the ratio 1.4 is within the tolerance of 0.5 (behavior)");

        pods(3, 100); // the scale-down tolerance is still the flag's
        assertThat(sync(hpa, NOW).metrics().get(0).calculation().tolerance().source()).isEqualTo(Tolerances.Source.FLAG);
    }

    @Test
    void atMaxReplicas() {
        pods(4, 1000);
        DecisionTrace t = sync(Specs.hpa(1, 4, Specs.cpuUtilization(50)), NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo("holding at 4: capped at maxReplicas 4 (the metrics recommend 8); "
                + "cpu resource utilization (percentage of request) 100% against a target of 50% recommends 8");
    }

    @Test
    void scaleUpCappedAtMaxReplicas() {
        pods(3, 1000);
        DecisionTrace t = sync(Specs.hpa(1, 4, Specs.cpuUtilization(50)), NOW);
        assertThat(DecisionSummary.of(t)).startsWith("scaling up from 3 to 4: capped at maxReplicas 4 (the metrics recommend 6)");
    }

    @Test
    void theScaleCannotBeRead() {
        cluster.scaleReadError = new ApiException("deployments.apps \"web\" not found");
        DecisionTrace t = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)), NOW);
        assertThat(DecisionSummary.of(t)).isEqualTo("no decision: FailedGetScale: failed to query scale subresource for Deployment/default/web: "
                + "deployments.apps \"web\" not found");
    }

    @Test
    void durationsAndNumbersReadShort() {
        assertThat(DecisionSummary.duration(300_000)).isEqualTo("5m");
        assertThat(DecisionSummary.duration(250)).isEqualTo("0.25s");
        assertThat(DecisionSummary.duration(130_000)).isEqualTo("2m10s");
        assertThat(DecisionSummary.duration(3_600_000)).isEqualTo("1h");
        assertThat(DecisionSummary.duration(3_645_000)).isEqualTo("1h45s");
        assertThat(DecisionSummary.number(1.04)).isEqualTo("1.04");
        assertThat(DecisionSummary.number(50)).isEqualTo("50");
        assertThat(DecisionSummary.number(0.3333333)).isEqualTo("0.333");
    }
}
