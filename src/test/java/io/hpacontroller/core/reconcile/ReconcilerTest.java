package io.hpacontroller.core.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReconcilerTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long NOW_MILLIS = NOW.toEpochMilli();

    private final FakeCluster cluster = new FakeCluster();
    private final HistoryStore histories = new HistoryStore();

    @BeforeEach
    void threeReadyPodsAtHalfTheirRequest() {
        cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
        cluster.pods = Pods.ready(3, 1000, NOW_MILLIS);
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 500, 500, 500);
    }

    private ReconcileOutcome sync(HorizontalPodAutoscaler hpa) {
        return sync(hpa, NOW);
    }

    private ReconcileOutcome sync(HorizontalPodAutoscaler hpa, Instant at) {
        return cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(at, ZoneOffset.UTC)).reconcile(hpa);
    }

    private static HorizontalPodAutoscalerCondition condition(HorizontalPodAutoscalerStatus status, String type) {
        return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow();
    }

    @Test
    void aSecondIdenticalSyncDoesNotWriteTheStatus() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        ReconcileOutcome first = sync(hpa);
        assertThat(first.statusWritten()).isTrue();
        assertThat(first.rescaled()).isFalse();

        hpa.setStatus(first.status());
        ReconcileOutcome second = sync(hpa, NOW.plusSeconds(15));

        assertThat(second.statusWritten()).isFalse();
        assertThat(cluster.statusWrites).hasSize(1);
        assertThat(second.error()).isEqualTo(ErrorKind.NONE);
    }

    @Test
    void anotherWriterOfTheStatusIsOneConditionAndOneEventUntilTheStatusPortKnowsItGone() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        String message = "kube-controller-manager wrote this HPA's status at 2026-03-01T11:59:58Z, between two syncs of hpa-controller: ...";
        cluster.otherWriter = OtherStatusWriter.seen(message);
        ReconcileOutcome first = sync(hpa);
        assertThat(first.statusWritten()).isTrue();
        assertThat(condition(first.status(), Reconciler.CONFLICTING_CONTROLLER)).satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getReason()).isEqualTo(Reconciler.STATUS_WRITTEN_BY_ANOTHER);
            assertThat(c.getMessage()).isEqualTo(message);
        });
        assertThat(condition(first.status(), "ScalingActive").getReason()).as("it stops nothing").isEqualTo("ValidMetricFound");
        assertThat(cluster.events).filteredOn(e -> e.reason().equals(Reconciler.CONFLICTING_CONTROLLER))
                .containsExactly(new FakeCluster.Event(EventRecorder.Type.Warning, Reconciler.CONFLICTING_CONTROLLER, message));

        hpa.setStatus(first.status());
        cluster.otherWriter = OtherStatusWriter.seen(message + " (seen again)");
        ReconcileOutcome again = sync(hpa, NOW.plusSeconds(15));
        cluster.scaleReadError = new ApiException("the server is currently unable to handle the request");
        ReconcileOutcome failing = sync(hpa, NOW.plusSeconds(30));
        assertThat(again.statusWritten()).as("set once: the same status").isFalse();
        assertThat(cluster.unchangedStatuses).isEqualTo(1);
        assertThat(condition(failing.status(), Reconciler.CONFLICTING_CONTROLLER).getMessage()).as("on a failure path too").isEqualTo(message);
        assertThat(cluster.eventReasons()).as("one event per conflict").containsOnlyOnce(Reconciler.CONFLICTING_CONTROLLER);

        cluster.scaleReadError = null;
        cluster.otherWriter = OtherStatusWriter.UNKNOWN;
        assertThat(sync(hpa, NOW.plusSeconds(45)).status().getConditions()).as("kept while the port cannot tell")
                .extracting(HorizontalPodAutoscalerCondition::getType).contains(Reconciler.CONFLICTING_CONTROLLER);
        cluster.otherWriter = OtherStatusWriter.NONE;
        ReconcileOutcome gone = sync(hpa, NOW.plusSeconds(60));
        assertThat(gone.statusWritten()).isTrue();
        assertThat(gone.status().getConditions()).extracting(HorizontalPodAutoscalerCondition::getType)
                .containsExactly("AbleToScale", "ScalingActive", "ScalingLimited");
        assertThat(cluster.eventReasons()).containsOnlyOnce(Reconciler.CONFLICTING_CONTROLLER);
    }

    @Test
    void theStatusWriterGetsTheDecisionOfTheSyncThatWritesTheStatus() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 1000, 1000, 1000);  // 100 % of 50 %: 3 -> 6
        ReconcileOutcome scaled = sync(hpa);

        assertThat(scaled.rescaled()).isTrue();
        assertThat(cluster.statusWriteDecisions).singleElement().satisfies(d -> {
            assertThat(d.action()).isEqualTo(ReconcileOutcome.Action.SCALE_UP);
            assertThat(d.currentReplicas()).isEqualTo(3);
            assertThat(d.desiredReplicas()).isEqualTo(6);
            assertThat(d.time()).isEqualTo(NOW_MILLIS);
            assertThat(DecisionSummary.of(d)).isEqualTo(DecisionSummary.of(scaled.trace()));
        });
        assertThat(DecisionSummary.of(scaled.trace())).startsWith("scaling up from 3 to 6");
    }

    @Test
    void aChangedMetricIsWrittenToTheStatus() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        hpa.setStatus(sync(hpa).status());
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 520, 520, 520);  // 52 %: inside the tolerance, new value
        ReconcileOutcome second = sync(hpa, NOW.plusSeconds(15));
        assertThat(second.rescaled()).isFalse();
        assertThat(second.statusWritten()).isTrue();
        assertThat(second.status().getCurrentMetrics().get(0).getResource().getCurrent().getAverageUtilization()).isEqualTo(52);
    }

    /**
     * The reproduction: the scale reads 3, an External metric proposes 6, and someone runs
     * {@code kubectl scale --replicas=12} before the PUT. The 6 was computed from 3: writing it over 12 would be
     * a scale-down nobody stabilized or limited. One write, no retry (upstream: one Update); the sync fails and
     * the next one decides from 12.
     */
    @Test
    void aConflictingScaleWriteFailsTheSyncAndTheNextSyncDecidesFromTheFreshScale() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 20, Specs.externalAverage("queue", "2"));
        hpa.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder()
                .withNewScaleDown().withStabilizationWindowSeconds(0)
                .addNewPolicy().withType("Pods").withValue(1).withPeriodSeconds(60).endPolicy().endScaleDown()
                .build());
        cluster.externalMetrics.put("queue", List.of(12_000L));  // 12 in total at 2 per pod: 6
        cluster.scaledByOthersBeforeNextWrite = 12;

        ReconcileOutcome first = sync(hpa);

        assertThat(cluster.scaleWrites).as("no write over the newer scale").isEmpty();
        assertThat(cluster.scale.specReplicas()).isEqualTo(12);
        assertThat(first.rescaled()).isFalse();
        assertThat(first.error()).isEqualTo(ErrorKind.INTERNAL);
        assertThat(first.errorMessage()).startsWith("failed to rescale Deployment/default/web: Operation cannot be fulfilled");
        assertThat(cluster.eventReasons()).containsExactly("FailedRescale");
        assertThat(cluster.events.get(0).message()).startsWith("New size: 6; reason: external metric queue(nil) above target; error: Operation cannot be fulfilled");
        HorizontalPodAutoscalerCondition able = condition(first.status(), "AbleToScale");
        assertThat(able.getStatus()).isEqualTo("False");
        assertThat(able.getReason()).isEqualTo("FailedUpdateScale");
        assertThat(first.status().getCurrentReplicas()).isEqualTo(3);
        assertThat(first.status().getDesiredReplicas()).as("desired stays as it was (unset: 0)").isZero();
        assertThat(first.status().getLastScaleTime()).isNull();
        assertThat(histories.of(HpaKey.parse("default/web")).scaleUpEvents()).as("no scale event for a write that did not happen").isEmpty();

        hpa.setStatus(first.status());
        ReconcileOutcome second = sync(hpa, NOW.plusSeconds(15));

        assertThat(second.currentReplicas()).isEqualTo(12);
        assertThat(cluster.scaleWrites).as("6 is proposed again, from 12 the scale-down policy allows one pod").containsExactly(11);
        assertThat(cluster.resourceVersionsWritten).as("guarded by the fresh read").containsExactly("2");
        assertThat(cluster.events.get(1).message()).isEqualTo("New size: 11; reason: All metrics below target");
    }

    @Test
    void aConflictIsNotRetriedWithinTheSync() {
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 1000, 1000, 1000);  // 100 % of a 50 % target
        cluster.scaleConflicts = 1;
        ReconcileOutcome o = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(cluster.scaleReads).as("the scale is read once per sync").isEqualTo(1);
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(o.rescaled()).isFalse();
        assertThat(o.action()).isEqualTo(Action.NONE);
        assertThat(cluster.eventReasons()).containsExactly("FailedRescale");
    }

    @Test
    void anyOtherScaleWriteErrorIsNotRetried() {
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 1000, 1000, 1000);
        cluster.scaleWriteError = new ApiException("Internal error occurred");
        ReconcileOutcome o = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(cluster.scaleReads).isEqualTo(1);
        assertThat(o.errorMessage()).contains("Internal error occurred");
        assertThat(cluster.eventReasons()).containsExactly("FailedRescale");
    }

    @Test
    void aScaleReadErrorIsFailedGetScale() {
        cluster.scaleReadError = new ApiException.NotFound("deployments.apps \"web\" not found");
        ReconcileOutcome o = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(o.error()).isEqualTo(ErrorKind.INTERNAL);
        assertThat(o.currentReplicas()).isEqualTo(-1);
        assertThat(o.errorMessage()).isEqualTo("failed to query scale subresource for Deployment/default/web: deployments.apps \"web\" not found");
        assertThat(cluster.eventReasons()).containsExactly("FailedGetScale");
        assertThat(cluster.scaleWrites).isEmpty();
        HorizontalPodAutoscalerCondition able = condition(cluster.lastStatus(), "AbleToScale");
        assertThat(able.getStatus()).isEqualTo("False");
        assertThat(able.getReason()).isEqualTo("FailedGetScale");
        assertThat(able.getMessage()).isEqualTo("the HPA controller was unable to get the target's current scale: deployments.apps \"web\" not found");
    }

    @Test
    void aStatusWriteErrorIsFailedUpdateStatus() {
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 1000, 1000, 1000);
        cluster.statusWriteError = new ApiException("etcdserver: request timed out");
        ReconcileOutcome o = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(o.rescaled()).as("the scale was written before the status").isTrue();
        assertThat(cluster.scaleWrites).containsExactly(6);
        assertThat(o.statusWritten()).isFalse();
        assertThat(o.error()).isEqualTo(ErrorKind.INTERNAL);
        assertThat(o.errorMessage()).isEqualTo("failed to update status for web");
        assertThat(cluster.eventReasons()).containsExactly("SuccessfulRescale", "FailedUpdateStatus");
        assertThat(cluster.events.get(1).message()).isEqualTo("etcdserver: request timed out");
    }

    @Test
    void aCountAboveMaxIsBroughtToMaxWithoutComputingMetrics() {
        cluster.scale = new ScaleTarget(12, 12, "app=web", "1");
        cluster.failingMetrics.add("cpu");
        ReconcileOutcome o = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(cluster.scaleWrites).containsExactly(10);
        assertThat(o.computations()).isEmpty();
        assertThat(o.action()).isEqualTo(Action.SCALE_DOWN);
        assertThat(o.rescaleReason()).isEqualTo("Current number of replicas above Spec.MaxReplicas");
        assertThat(cluster.events.get(0).message()).isEqualTo("New size: 10; reason: Current number of replicas above Spec.MaxReplicas");
        assertThat(o.status().getDesiredReplicas()).isEqualTo(10);
        assertThat(o.status().getLastScaleTime()).isEqualTo("2026-03-01T12:00:00Z");
    }

    @Test
    void aCountBelowMinIsBroughtToMinWithoutComputingMetrics() {
        cluster.scale = new ScaleTarget(1, 1, "app=web", "1");
        cluster.failingMetrics.add("cpu");
        ReconcileOutcome o = sync(Specs.hpa(2, 10, Specs.cpuUtilization(50)));
        assertThat(cluster.scaleWrites).containsExactly(2);
        assertThat(o.computations()).isEmpty();
        assertThat(o.rescaleReason()).isEqualTo("Current number of replicas below Spec.MinReplicas");
    }

    @Test
    void aNegativeCountFromTheScaleIsBelowMin() {
        cluster.scale = new ScaleTarget(-4, 0, "app=web", "1");
        ReconcileOutcome o = sync(Specs.hpa(2, 10, Specs.cpuUtilization(50)));
        assertThat(cluster.scaleWrites).containsExactly(2);
        assertThat(o.rescaleReason()).isEqualTo("Current number of replicas below Spec.MinReplicas");
    }

    @Test
    void forgetDropsTheHistory() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        Reconciler r = cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(NOW, ZoneOffset.UTC));
        r.reconcile(hpa);
        assertThat(histories.of(HpaKey.parse("default/web")).seen()).isTrue();
        r.forget(HpaKey.of(hpa));
        assertThat(histories.size()).isZero();
        assertThat(histories.of(HpaKey.parse("default/web")).seen()).isFalse();
    }

    @Test
    void noMetricsMeansEightyPercentCpu() {
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 900, 900, 900);  // 90 % of request: 1.125 of an 80 % target
        for (HorizontalPodAutoscaler hpa : new HorizontalPodAutoscaler[]{Specs.hpa(1, 10), withNullMetrics(Specs.hpa(1, 10))}) {
            cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
            ReconcileOutcome o = new FakeClusterRun(cluster).sync(hpa);
            assertThat(o.desiredReplicas()).isEqualTo(4);
            assertThat(o.status().getCurrentMetrics()).hasSize(1);
            assertThat(o.status().getCurrentMetrics().get(0).getResource().getName()).isEqualTo("cpu");
            assertThat(o.status().getCurrentMetrics().get(0).getResource().getCurrent().getAverageUtilization()).isEqualTo(90);
        }
        assertThat(cluster.scaleWrites).containsExactly(4, 4);
    }

    private static HorizontalPodAutoscaler withNullMetrics(HorizontalPodAutoscaler hpa) {
        hpa.getSpec().setMetrics(null);
        return hpa;
    }

    /** A fresh history for each sync. */
    private record FakeClusterRun(FakeCluster cluster) {
        ReconcileOutcome sync(HorizontalPodAutoscaler hpa) {
            return cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), Clock.fixed(NOW, ZoneOffset.UTC)).reconcile(hpa);
        }
    }

    @Test
    void aPortThatThrowsIsAnInternalOutcomeNotAnException() {
        cluster.podListBug = new IllegalStateException("informer cache is closed");
        ReconcileOutcome o = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(o.error()).isEqualTo(ErrorKind.INTERNAL);
        assertThat(o.errorMessage()).contains("internal error while reconciling default/web").contains("informer cache is closed");
        assertThat(o.rescaled()).isFalse();
        assertThat(cluster.scaleWrites).isEmpty();
    }

    @Test
    void anHpaWithoutMetadataOrNoHpaAtAllIsAnInternalOutcome() {
        HorizontalPodAutoscaler noMetadata = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        noMetadata.setMetadata(null);
        for (HorizontalPodAutoscaler hpa : new HorizontalPodAutoscaler[]{noMetadata, null}) {
            ReconcileOutcome o = sync(hpa);
            assertThat(o.error()).isEqualTo(ErrorKind.INTERNAL);
            assertThat(o.rescaled()).isFalse();
        }
        assertThat(cluster.scaleWrites).isEmpty();
    }

    @Test
    void aNullConditionInTheStatusIsSkipped() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        HorizontalPodAutoscalerStatus status = new HorizontalPodAutoscalerStatus();
        status.setConditions(new ArrayList<>(java.util.Arrays.asList((HorizontalPodAutoscalerCondition) null)));
        hpa.setStatus(status);
        ReconcileOutcome o = sync(hpa);
        assertThat(o.error()).isEqualTo(ErrorKind.NONE);
        assertThat(o.status().getConditions()).extracting(HorizontalPodAutoscalerCondition::getType)
                .containsExactly("AbleToScale", "ScalingActive", "ScalingLimited");
    }

    @Test
    void aMetricFetchErrorKeepsTheCountAndSaysWhy() {
        cluster.failingMetrics.add("cpu");
        ReconcileOutcome o = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(cluster.eventReasons()).containsExactly("FailedGetResourceMetric", "FailedComputeMetricsReplicas");
        assertThat(condition(o.status(), "ScalingActive").getReason()).isEqualTo("FailedGetResourceMetric");
        assertThat(o.computations()).extracting(ReconcileOutcome.MetricComputation::error).containsExactly(ErrorKind.INTERNAL);
    }

    /**
     * A failed metric's entry in status.currentMetrics is upstream's zero MetricStatus; the API server stores
     * and returns it as {"type":""}. Read back, the status must equal what the next sync would write, or every
     * sync of a failing HPA rewrites an unchanged status.
     */
    @Test
    void aFailingMetricDoesNotRewriteAnUnchangedStatus() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50), Specs.podsAverage("qps", "10"));
        cluster.failingMetrics.add("cpu");
        cluster.failingMetrics.add("qps");
        ReconcileOutcome first = sync(hpa);
        assertThat(first.statusWritten()).isTrue();
        assertThat(first.status().getCurrentMetrics()).hasSize(2);

        hpa.setStatus(asTheApiServerReturnsIt(first.status()));
        assertThat(hpa.getStatus().getCurrentMetrics()).extracting(MetricStatus::getType).containsExactly("", "");
        ReconcileOutcome second = sync(hpa, NOW.plusSeconds(15));

        assertThat(second.error()).isEqualTo(ErrorKind.INTERNAL);
        assertThat(second.statusWritten()).isFalse();
        assertThat(cluster.statusWrites).hasSize(1);
    }

    /** currentReplicas is omitempty: at 0 replicas the API server returns no currentReplicas at all. */
    @Test
    void aTargetAtZeroDoesNotRewriteAnUnchangedStatus() {
        cluster.scale = new ScaleTarget(0, 0, "app=web", "1");
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        ReconcileOutcome first = sync(hpa);
        assertThat(condition(first.status(), "ScalingActive").getReason()).isEqualTo("ScalingDisabled");

        hpa.setStatus(asTheApiServerReturnsIt(first.status()));
        assertThat(hpa.getStatus().getCurrentReplicas()).isNull();
        ReconcileOutcome second = sync(hpa, NOW.plusSeconds(15));

        assertThat(second.statusWritten()).isFalse();
        assertThat(cluster.statusWrites).hasSize(1);
    }

    /**
     * The status as the API server stores and returns it (Go's JSON of autoscaling/v2): {@code type} of a metric
     * entry is always present, {@code currentReplicas} is omitted when 0.
     */
    private static HorizontalPodAutoscalerStatus asTheApiServerReturnsIt(HorizontalPodAutoscalerStatus status) {
        KubernetesSerialization json = new KubernetesSerialization();
        ObjectNode tree = json.convertValue(status, ObjectNode.class);
        if (tree.path("currentReplicas").asInt(-1) == 0) {
            tree.remove("currentReplicas");
        }
        for (JsonNode m : tree.path("currentMetrics")) {
            if (!m.has("type")) {
                ((ObjectNode) m).put("type", "");
            }
        }
        return json.unmarshal(json.asJson(tree), HorizontalPodAutoscalerStatus.class);
    }

    @Test
    void theDownscaleStabilizationWindowHoldsAScaleDownOnTheFirstSync() {
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 100, 100, 100);
        ReconcileOutcome first = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        assertThat(first.proposedReplicas()).isEqualTo(1);
        assertThat(first.rescaled()).isFalse();
        ReconcileOutcome later = sync(Specs.hpa(1, 10, Specs.cpuUtilization(50)), NOW.plus(Duration.ofMinutes(6)));
        assertThat(later.rescaled()).isTrue();
        assertThat(cluster.scaleWrites).containsExactly(1);
    }

    /**
     * Issue 35.6: a count reset by hand below the recommendation the (legacy) scale-down window keeps is raised back by
     * the window, though the metrics recommend the count as it is (or less): upstream's reason is then empty (or "All
     * metrics below target" on a scale up); ours names the window, in the event, the trace and the log line.
     */
    @Test
    void aCountResetByHandBelowTheStabilizedRecommendationIsRaisedWithAReasonNamingTheWindow() {
        cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
        cluster.pods = Pods.ready(4, 1000, NOW_MILLIS);
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, 500, 500, 500, 500); // at the 50 % target: 4 recommended
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        assertThat(sync(hpa).rescaled()).isFalse();

        for (long[] usage : new long[][] {{500, 500}, {100, 100}}) { // 2 recommended (the count as it is), then 1
            cluster.scale = new ScaleTarget(2, 2, "app=web", "2"); // kubectl scale --replicas=2
            cluster.pods = Pods.ready(2, 1000, NOW_MILLIS);
            cluster.podUsage = Pods.cpuUsage(NOW_MILLIS + 20_000, usage);
            cluster.events.clear();
            ReconcileOutcome raised = sync(hpa, NOW.plusSeconds(20));

            assertThat(raised.rescaled()).isTrue();
            assertThat(raised.desiredReplicas()).isEqualTo(4);
            String reason = "the 5m scale-down window keeps the recommendation of 4 made 20s ago";
            assertThat(raised.rescaleReason()).isEqualTo(reason);
            assertThat(cluster.events).singleElement().satisfies(e -> assertThat(e.message()).isEqualTo("New size: 4; reason: " + reason));
        }
    }
}
