package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.Retention;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the reconcile step hands to the {@link HistoryWriter}, and when. */
class HistoryWriterTest {

    private static final long NOW = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli();

    private final FakeCluster cluster = new FakeCluster();
    private final HistoryStore histories = new HistoryStore();

    /** What the writer was given, and how many scales were written when it was. */
    private record Saved(HistorySnapshot kept, Retention retention, int scaleWritesBefore) {
    }

    private final List<Saved> saved = new ArrayList<>();
    private ApiException failure;

    private final HistoryWriter writer = (hpa, kept, retention, now) -> {
        saved.add(new Saved(kept, retention, cluster.scaleWrites.size()));
        if (failure != null) {
            throw failure;
        }
    };

    private ReconcileOutcome sync(HorizontalPodAutoscaler hpa, long at) {
        Reconciler r = new Reconciler(ControllerConfig.defaults(), Ports.of(cluster, SelectorOwnership.NONE).withHistory(writer), histories,
                Clock.fixed(Instant.ofEpochMilli(at), ZoneOffset.UTC));
        ReconcileOutcome o = r.reconcile(hpa);
        hpa.setStatus(o.status());
        return o;
    }

    private static HorizontalPodAutoscaler queue() {
        HorizontalPodAutoscaler hpa = Specs.hpa(2, 10, Specs.externalAverage("queue", "100"));
        hpa.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleDown().withStabilizationWindowSeconds(30).endScaleDown()
                .withNewScaleUp().addNewPolicy().withType("Pods").withValue(2).withPeriodSeconds(60).endPolicy().endScaleUp().build());
        return hpa;
    }

    @Test
    void theScaleEventIsHandedOverBeforeTheScaleIsWritten() {
        cluster.scale = new ScaleTarget(2, 2, "app=web", "1");
        cluster.externalMetrics.put("queue", List.of(800_000L));
        HorizontalPodAutoscaler hpa = queue();

        ReconcileOutcome o = sync(hpa, NOW);

        assertThat(o.rescaled()).isTrue();
        assertThat(cluster.scaleWrites).containsExactly(4);
        assertThat(saved).singleElement().satisfies(s -> {
            assertThat(s.scaleWritesBefore()).as("handed over before the scale").isZero();
            assertThat(s.kept().scaleUpEvents()).containsExactly(new HpaHistory.ScaleEvent(2, NOW));
            assertThat(s.kept().runInProgress()).isEqualTo(new HpaHistory.Recommendation(8, NOW));
            assertThat(s.retention()).isEqualTo(new Retention(0, 30_000));
        });
        assertThat(histories.snapshot(HpaKey.of(hpa)).scaleUpEvents()).as("then recorded in memory alike")
                .isEqualTo(saved.get(0).kept().scaleUpEvents());
    }

    @Test
    void aFailedSaveHoldsTheScaleBackUntilASaveSucceeds() {
        cluster.scale = new ScaleTarget(2, 2, "app=web", "1");
        cluster.externalMetrics.put("queue", List.of(800_000L));
        failure = new ApiException("horizontalpodautoscalerhistories.autoscaling.hpa-controller.io is forbidden");
        HorizontalPodAutoscaler hpa = queue();

        ReconcileOutcome o = sync(hpa, NOW);

        assertThat(o.rescaled()).isFalse();
        assertThat(cluster.scaleWrites).as("a scale whose event is not kept is not written").isEmpty();
        assertThat(o.trace().errorReason()).isEqualTo(Reconciler.FAILED_UPDATE_HISTORY);
        assertThat(o.status().getConditions()).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("AbleToScale");
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo(Reconciler.FAILED_UPDATE_HISTORY);
        });
        assertThat(cluster.events).contains(new FakeCluster.Event(EventRecorder.Type.Warning, "FailedUpdateHistory",
                "failed to keep the history (recommendations, scale events) for the next leader: "
                        + "horizontalpodautoscalerhistories.autoscaling.hpa-controller.io is forbidden"));
        assertThat(histories.snapshot(HpaKey.of(hpa)).scaleUpEvents()).as("no event recorded for a scale not written").isEmpty();

        failure = null;
        ReconcileOutcome next = sync(hpa, NOW + 15_000);
        assertThat(next.rescaled()).isTrue();
        assertThat(cluster.scaleWrites).containsExactly(4);
    }

    @Test
    void aFailedSaveWithoutARescaleCostsOnlyAWarning() {
        cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
        cluster.externalMetrics.put("queue", List.of(400_000L));
        failure = new ApiException("connection refused");

        ReconcileOutcome o = sync(queue(), NOW);

        assertThat(o.rescaled()).isFalse();
        assertThat(o.trace().errorReason()).isNull();
        assertThat(cluster.events).extracting(FakeCluster.Event::reason).contains("FailedUpdateHistory");
    }

    @Test
    void aSyncWhoseMetricsFailedHandsOverItsHistoryTooAndOneThatReadNoScaleDoesNot() {
        cluster.scale = new ScaleTarget(2, 2, "app=web", "1");
        cluster.failingMetrics.add("queue");
        HorizontalPodAutoscaler hpa = queue();
        sync(hpa, NOW);
        assertThat(saved).singleElement().satisfies(s -> assertThat(s.kept().recommendations()).as("the first sync's")
                .containsExactly(new HpaHistory.Recommendation(2, NOW)));

        cluster.scaleReadError = new ApiException("deployments.apps \"web\" not found");
        sync(hpa, NOW + 15_000);
        assertThat(saved).as("no decision, no history to keep").hasSize(1);
    }

    @Test
    void aPreviewSyncHandsOverItsRecommendationAndNoScaleEvent() {
        cluster.scale = new ScaleTarget(2, 2, "app=web", "1");
        cluster.externalMetrics.put("queue", List.of(800_000L));
        HorizontalPodAutoscaler hpa = queue();
        hpa.getMetadata().setAnnotations(java.util.Map.of(io.hpacontroller.core.controls.ControlAnnotations.MODE, "Preview"));

        ReconcileOutcome o = sync(hpa, NOW);

        assertThat(o.rescaled()).isFalse();
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(saved).singleElement().satisfies(s -> {
            assertThat(s.kept().scaleUpEvents()).as("no scale was written").isEmpty();
            assertThat(s.kept().runInProgress()).isEqualTo(new HpaHistory.Recommendation(8, NOW));
        });
    }

    @Test
    void withoutAWriterNothingIsPlanned() {
        cluster.scale = new ScaleTarget(2, 2, "app=web", "1");
        cluster.externalMetrics.put("queue", List.of(800_000L));
        ReconcileOutcome o = cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC))
                .reconcile(queue());
        assertThat(o.rescaled()).isTrue();
        assertThat(saved).isEmpty();
    }
}
