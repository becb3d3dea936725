package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.MetricFailures;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The per-HPA controls as the core applies them: invalid, Suspended, Preview, warm-up, fallback. */
class ControlsTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long NOW_MILLIS = NOW.toEpochMilli();
    private static final String P = ControlAnnotations.PREFIX;

    private final FakeCluster cluster = new FakeCluster();
    private final HistoryStore histories = new HistoryStore();

    /** Three pods at 100 % of their request against a 50 % target: upstream proposes 6. */
    @BeforeEach
    void threePodsAtTwiceTheTarget() {
        cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
        cluster.pods = Pods.ready(3, 1000, NOW_MILLIS);
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 1000, 1000, 1000);
    }

    private ReconcileOutcome sync(HorizontalPodAutoscaler hpa, long secondsLater) {
        ReconcileOutcome o = cluster.reconciler(io.hpacontroller.core.reconcile.ControllerConfig.defaults(), histories,
                Clock.fixed(NOW.plusSeconds(secondsLater), ZoneOffset.UTC)).reconcile(hpa);
        hpa.setStatus(o.status());
        return o;
    }

    private static HorizontalPodAutoscaler annotated(HorizontalPodAutoscaler hpa, String... nameValue) {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            a.put(P + nameValue[i], nameValue[i + 1]);
        }
        hpa.getMetadata().setAnnotations(a);
        return hpa;
    }

    private static HorizontalPodAutoscalerCondition condition(HorizontalPodAutoscalerStatus status, String type) {
        return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow();
    }

    // ---- invalid ----

    @Test
    void anInvalidAnnotationStopsThatHpaWithAConditionAndAWarningAndReadsNothing() {
        HorizontalPodAutoscaler bad = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "sync-period", "0", "mode", "Suspnded");
        ReconcileOutcome o = sync(bad, 0);

        assertThat(cluster.scaleReads + cluster.metricReads + cluster.podLists).as("nothing read").isZero();
        assertThat(cluster.scaleWrites).isEmpty();
        HorizontalPodAutoscalerCondition active = condition(o.status(), "ScalingActive");
        assertThat(active.getStatus()).isEqualTo("False");
        assertThat(active.getReason()).isEqualTo("InvalidAnnotation");
        assertThat(active.getMessage()).isEqualTo("the HPA does not scale until its controls are fixed: "
                + "autoscaling.hpa-controller.io/mode: must be one of Auto, Preview, Suspended, got \"Suspnded\"; "
                + "autoscaling.hpa-controller.io/sync-period: must be a duration from 1s to 1h (e.g. 30s), got \"0\"");
        assertThat(cluster.events).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventRecorder.Type.Warning);
            assertThat(e.reason()).isEqualTo("InvalidAnnotation");
            assertThat(e.message()).startsWith("autoscaling.hpa-controller.io/mode: must be one of");
        });
        assertThat(o.trace().errorReason()).isEqualTo("InvalidAnnotation");
        assertThat(o.error()).isEqualTo(ErrorKind.SPEC);
        assertThat(DecisionSummary.of(o.trace())).startsWith("no decision: InvalidAnnotation: autoscaling.hpa-controller.io/mode");

        HorizontalPodAutoscaler good = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        good.getMetadata().setName("other");
        assertThat(sync(good, 0).rescaled()).as("the other HPAs are unaffected").isTrue();
        assertThat(cluster.scaleWrites).containsExactly(6);
    }

    @Test
    void aTypoUnderThePrefixIsNotIgnored() {
        ReconcileOutcome o = sync(annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "mdoe", "Preview"), 0);
        assertThat(o.rescaled()).isFalse();
        assertThat(condition(o.status(), "ScalingActive").getMessage()).contains("autoscaling.hpa-controller.io/mdoe: unknown annotation");
    }

    // ---- Suspended ----

    @Test
    void suspendedReadsNoMetricAndWritesNothingButOneCondition() {
        HorizontalPodAutoscaler hpa = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "mode", "Suspended");
        HorizontalPodAutoscalerStatus before = new HorizontalPodAutoscalerStatus();
        before.setCurrentReplicas(3);
        before.setDesiredReplicas(3);
        hpa.setStatus(before);

        ReconcileOutcome o = sync(hpa, 0);

        assertThat(cluster.scaleReads + cluster.metricReads + cluster.podLists).as("nothing read").isZero();
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(cluster.events).as("no event").isEmpty();
        assertThat(cluster.statusWrites).singleElement().satisfies(s -> {
            assertThat(s.getCurrentReplicas()).isEqualTo(3);
            assertThat(s.getDesiredReplicas()).isEqualTo(3);
            assertThat(s.getConditions()).singleElement().satisfies(c -> {
                assertThat(c.getType()).isEqualTo("ScalingActive");
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo("Suspended");
            });
        });
        assertThat(o.trace().controls().suspended()).isTrue();
        assertThat(DecisionSummary.of(o.trace())).startsWith("suspended (mode Suspended)");

        ReconcileOutcome again = sync(hpa, 15);
        assertThat(again.statusWritten()).as("the condition is written once").isFalse();
        assertThat(cluster.metricReads).isZero();
    }

    // ---- Preview ----

    @Test
    void previewDecidesAndWritesStatusAndEventsButNeverTheScale() {
        HorizontalPodAutoscaler hpa = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "mode", "Preview");
        ReconcileOutcome o = sync(hpa, 0);

        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(o.status().getDesiredReplicas()).as("what it would do").isEqualTo(6);
        assertThat(o.status().getCurrentReplicas()).isEqualTo(3);
        assertThat(o.status().getLastScaleTime()).isNull();
        HorizontalPodAutoscalerCondition able = condition(o.status(), "AbleToScale");
        assertThat(able.getStatus()).isEqualTo("False");
        assertThat(able.getReason()).isEqualTo("Preview");
        assertThat(able.getMessage()).isEqualTo("mode Preview: the HPA controller does not write the target's scale; would scale from 3 to 6 "
                + "(cpu resource utilization (percentage of request) above target); ReadyForNewScale: recommended size matches current size");
        assertThat(cluster.events).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventRecorder.Type.Normal);
            assertThat(e.reason()).isEqualTo("PreviewRescale");
            assertThat(e.message()).isEqualTo("New size: 6; reason: cpu resource utilization (percentage of request) above target; not written (mode Preview)");
        });
        assertThat(o.trace().action()).isEqualTo(Action.SCALE_UP);
        assertThat(o.trace().rescaled()).isFalse();
        assertThat(o.action()).as("nothing was done").isEqualTo(Action.NONE);
        assertThat(DecisionSummary.of(o.trace())).startsWith("preview, would be scaling up from 3 to 6 (mode Preview: the scale is not written): ");
    }

    /**
     * Preview records the recommendation (a window holds recommendations whether written or not) but no scale
     * event (the target did not change): switched to Auto, the policy counts only the changes that happened.
     */
    @Test
    void previewKeepsTheHistoryAutoWouldFind() {
        HorizontalPodAutoscaler hpa = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "mode", "Preview");
        hpa.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder()
                .withNewScaleUp().withStabilizationWindowSeconds(0).addNewPolicy().withType("Pods").withValue(1).withPeriodSeconds(60).endPolicy()
                .endScaleUp().build());
        ReconcileOutcome preview = sync(hpa, 0);
        assertThat(preview.status().getDesiredReplicas()).as("one pod per minute").isEqualTo(4);
        HpaHistory history = histories.of(HpaKey.parse("default/web"));
        assertThat(history.recommendations()).extracting(HpaHistory.Recommendation::replicas).contains(6);
        assertThat(history.scaleUpEvents()).as("no scale event for a scale that was not written").isEmpty();

        hpa.getMetadata().setAnnotations(Map.of());
        ReconcileOutcome auto = sync(hpa, 15);
        assertThat(cluster.scaleWrites).as("the policy allows its pod: the previewed one did not count").containsExactly(4);
        assertThat(condition(auto.status(), "AbleToScale").getReason()).isEqualTo("SucceededRescale");
    }

    // ---- the conditions a change of mode leaves (issue 38.3) ----

    private static List<String> conditions(HorizontalPodAutoscalerStatus status) {
        return status.getConditions().stream().map(c -> c.getType() + " " + c.getStatus() + " " + c.getReason()).toList();
    }

    @Test
    void aModeChangedOrBrokenLeavesNoConditionOfTheModeItLeft() {
        HorizontalPodAutoscaler hpa = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "mode", "Preview");
        ReconcileOutcome preview = sync(hpa, 0);
        assertThat(conditions(preview.status())).containsExactly("AbleToScale False Preview", "ScalingActive True ValidMetricFound",
                "ScalingLimited False DesiredWithinRange");
        assertThat(conditions(sync(hpa, 15).status())).as("a mode that stays keeps its condition").contains("AbleToScale False Preview");

        annotated(hpa, "mode", "Suspended");
        assertThat(conditions(sync(hpa, 30).status())).as("Preview no longer applies")
                .containsExactly("ScalingActive False Suspended", "ScalingLimited False DesiredWithinRange");

        annotated(hpa, "mode", "Preview");
        sync(hpa, 45);
        annotated(hpa, "mdoe", "Suspended");
        assertThat(conditions(sync(hpa, 60).status())).as("a misspelled annotation after Preview")
                .containsExactly("ScalingActive False InvalidAnnotation", "ScalingLimited False DesiredWithinRange");
    }

    @Test
    void aSyncThatStopsBeforeTheMetricsLeavesNoSuspendedBehind() {
        HorizontalPodAutoscaler hpa = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "mode", "Suspended");
        assertThat(conditions(sync(hpa, 0).status())).containsExactly("ScalingActive False Suspended");

        hpa.getMetadata().setAnnotations(Map.of());
        cluster.scaleReadError = new ApiException("the server is currently unable to handle the request");
        assertThat(conditions(sync(hpa, 15).status())).as("upstream sets AbleToScale only; Suspended no longer applies")
                .containsExactly("AbleToScale False FailedGetScale");

        cluster.scaleReadError = null;
        assertThat(conditions(sync(hpa, 30).status())).containsExactly("AbleToScale True SucceededRescale",
                "ScalingActive True ValidMetricFound", "ScalingLimited False DesiredWithinRange", "ScaledToZero False NotScaledToZero");
    }

    @Test
    void previewWithFailingMetricsSaysSoInAbleToScale() {
        cluster.failingMetrics.add("cpu");
        ReconcileOutcome o = sync(annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "mode", "Preview"), 0);
        HorizontalPodAutoscalerCondition able = condition(o.status(), "AbleToScale");
        assertThat(able.getReason()).isEqualTo("Preview");
        assertThat(able.getMessage()).endsWith("the metrics give no recommendation");
        assertThat(condition(o.status(), "ScalingActive").getReason()).isEqualTo("FailedGetResourceMetric");
    }

    // ---- warm-up ----

    private static PodInfo unreadyPod(String name, long startedAgo, long readyTransitionAfterStart) {
        long start = NOW_MILLIS - startedAgo;
        return new PodInfo(name, PodPhase.RUNNING, ReadyStatus.FALSE, start + readyTransitionAfterStart, start, false,
                new ContainerInfo[]{new ContainerInfo("app", ResourceAmounts.of(Map.of("cpu", 1000L)))}, null);
    }

    /** Three ready pods at the 50 % target and one unready pod using its whole request. */
    private void fourthPodUnready(PodInfo unready) {
        cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
        List<PodInfo> pods = new ArrayList<>(Pods.ready(3, 1000, NOW_MILLIS));
        pods.add(unready);
        cluster.pods = pods;
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 500, 500, 500, 1000);
    }

    @Test
    void theHpasOwnCpuInitializationPeriodReplacesTheFlags() {
        // started 3 minutes ago, Ready until a minute ago: inside the flag's 5m it is unready, after a 1m period it counts
        fourthPodUnready(unreadyPod("pod-3", 180_000, 120_000));
        HorizontalPodAutoscaler flag = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        assertThat(sync(flag, 0).desiredReplicas()).as("the flag's 5m: the pod is ignored, 50 %").isEqualTo(4);

        HorizontalPodAutoscaler own = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "cpu-initialization-period", "1m");
        own.getMetadata().setName("own");
        ReconcileOutcome o = sync(own, 0);
        assertThat(o.desiredReplicas()).as("its own 1m: the pod counts, 62.5 %").isEqualTo(5);
        assertThat(o.trace().controls().cpuInitializationPeriodMillis()).isEqualTo(60_000);
        assertThat(o.trace().controls().named()).containsExactly("cpu initialization period 1m");
    }

    @Test
    void theHpasOwnInitialReadinessDelayReplacesTheFlags() {
        // started 10 minutes ago, turned unready 20 s after its start: within the flag's 30 s it never was ready
        fourthPodUnready(unreadyPod("pod-3", 600_000, 20_000));
        assertThat(sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)), 0).desiredReplicas()).isEqualTo(4);

        HorizontalPodAutoscaler own = annotated(Specs.hpa(1, 10, Specs.cpuUtilization(50)), "initial-readiness-delay", "10s");
        own.getMetadata().setName("own");
        assertThat(sync(own, 0).desiredReplicas()).isEqualTo(5);
    }

    // ---- fallback ----

    private HorizontalPodAutoscaler queueHpa(String... annotations) {
        cluster.failingMetrics.add("queue");
        return annotated(Specs.hpa(1, 10, Specs.externalAverage("queue", "2")), annotations);
    }

    @Test
    void aMetricFailedForFallbackAfterProposesTheFallbackReplicasThenItsOwnAgain() {
        HorizontalPodAutoscaler hpa = queueHpa("fallback-replicas", "6", "fallback-after", "2m");

        ReconcileOutcome first = sync(hpa, 0);
        assertThat(first.rescaled()).as("not yet: it blocks, as upstream").isFalse();
        assertThat(condition(first.status(), "ScalingActive").getReason()).isEqualTo("FailedGetExternalMetric");
        assertThat(first.trace().metrics().get(0).failingSince()).isEqualTo(NOW_MILLIS);
        assertThat(histories.metricFailures(HpaKey.parse("default/web")).all()).containsExactly(
                new MetricFailures.MetricFailure("External/queue", NOW_MILLIS, false));
        assertThat(sync(hpa, 105).rescaled()).isFalse();
        assertThat(cluster.eventReasons()).containsOnly("FailedGetExternalMetric", "FailedComputeMetricsReplicas");

        ReconcileOutcome fallback = sync(hpa, 120);
        assertThat(cluster.scaleWrites).containsExactly(6);
        HorizontalPodAutoscalerCondition active = condition(fallback.status(), "ScalingActive");
        assertThat(active.getStatus()).isEqualTo("True");
        assertThat(active.getReason()).isEqualTo("FallbackActive");
        assertThat(active.getMessage()).isEqualTo("the HPA was able to compute a replica count with the fallback of 6 replicas for "
                + "External metric queue, failing since 2026-03-01T12:00:00Z");
        assertThat(cluster.events).filteredOn(e -> e.reason().equals("FallbackActive")).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventRecorder.Type.Warning);
            assertThat(e.message()).isEqualTo("External metric queue has failed since 2026-03-01T12:00:00Z (2m): proposing the fallback of 6 "
                    + "replicas until it gives a value again");
        });
        assertThat(cluster.events).filteredOn(e -> e.reason().equals("SuccessfulRescale")).singleElement()
                .satisfies(e -> assertThat(e.message()).isEqualTo("New size: 6; reason: fallback replicas for External metric queue, failing since 2026-03-01T12:00:00Z"));
        MetricTrace m = fallback.trace().metrics().get(0);
        assertThat(m.fallback()).isTrue();
        assertThat(m.replicas()).isEqualTo(6);
        assertThat(DecisionSummary.of(fallback.trace())).startsWith("scaling up from 3 to 6: External metric queue has failed for 2m (");
        assertThat(fallback.trace().controls().named()).containsExactly("fallback 6 replicas after 2m");

        sync(hpa, 135);
        assertThat(cluster.eventReasons()).filteredOn("FallbackActive"::equals).as("announced once").hasSize(1);

        cluster.failingMetrics.clear();
        cluster.externalMetrics.put("queue", List.of(16_000L)); // 16 at 2 per pod: 8
        ReconcileOutcome recovered = sync(hpa, 150);
        assertThat(cluster.scaleWrites).containsExactly(6, 8);
        assertThat(condition(recovered.status(), "ScalingActive").getReason()).isEqualTo("ValidMetricFound");
        assertThat(cluster.events).filteredOn(e -> e.reason().equals("FallbackEnded")).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventRecorder.Type.Normal);
            assertThat(e.message()).isEqualTo("External metric queue gives a value again after failing for 2m30s: the fallback replicas are no longer proposed");
        });
        assertThat(histories.metricFailures(HpaKey.parse("default/web")).all()).isEmpty();
    }

    @Test
    void aFallbackEntersTheMaxAndIsStillLimitedAndClamped() {
        HorizontalPodAutoscaler hpa = queueHpa("fallback-replicas", "40", "fallback-after", "1m");
        hpa.getSpec().setMetrics(List.of(Specs.externalAverage("queue", "2"), Specs.cpuUtilization(50)));
        sync(hpa, 0);
        assertThat(cluster.scaleWrites).as("cpu proposes 6: a failed metric does not block a scale-up").containsExactly(6);
        ReconcileOutcome o = sync(hpa, 60);
        assertThat(o.trace().selectedMetric()).as("the fallback wins the max").isZero();
        assertThat(cluster.scaleWrites).as("max(2 x 6, 4) and then maxReplicas").containsExactly(6, 10);
    }

    @Test
    void anInvalidMetricSpecNeverFallsBack() {
        HorizontalPodAutoscaler hpa = annotated(Specs.hpa(1, 10, Specs.externalAverage("queue", "0")), "fallback-replicas", "6",
                "fallback-after", "1s");
        sync(hpa, 0);
        ReconcileOutcome later = sync(hpa, 600);
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(later.trace().metrics().get(0).fallback()).isFalse();
        assertThat(histories.metricFailures(HpaKey.parse("default/web")).all()).isEmpty();
    }

    @Test
    void withoutTheControlNothingIsMeasuredAndRemovingItEndsAFallbackInForce() {
        HorizontalPodAutoscaler plain = queueHpa();
        sync(plain, 0);
        assertThat(histories.metricFailures(HpaKey.parse("default/web")).all()).isEmpty();
        assertThat(sync(plain, 0).trace().metrics().get(0).failingSince()).isZero();

        HorizontalPodAutoscaler hpa = queueHpa("fallback-replicas", "6", "fallback-after", "1m");
        sync(hpa, 10);
        sync(hpa, 70);
        assertThat(cluster.scaleWrites).containsExactly(6);
        hpa.getMetadata().setAnnotations(Map.of());
        ReconcileOutcome o = sync(hpa, 85);
        assertThat(o.rescaled()).isFalse();
        assertThat(cluster.eventReasons()).contains("FallbackEnded");
        assertThat(histories.metricFailures(HpaKey.parse("default/web")).all()).isEmpty();
    }

    @Test
    void aSuspensionEndsAFailureRun() {
        HorizontalPodAutoscaler hpa = queueHpa("fallback-replicas", "6", "fallback-after", "1m");
        sync(hpa, 0);
        hpa.getMetadata().getAnnotations().put(P + "mode", "Suspended");
        sync(hpa, 30);
        assertThat(histories.metricFailures(HpaKey.parse("default/web")).all()).as("nothing is observed while suspended").isEmpty();
        hpa.getMetadata().getAnnotations().remove(P + "mode");
        assertThat(sync(hpa, 70).rescaled()).as("failing for 0s, not 70s").isFalse();
    }
}
