package io.hpacontroller.ops;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.MetricFailures;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What the decisions endpoint serves reads back as it was written, the controls and the metrics' failures included. */
class DecisionsJsonTest {

    @Test
    void aTraceUnderControlsAndAHistoryWithMetricFailuresReadBackUnchanged() throws Exception {
        Instant now = Instant.parse("2026-03-01T12:00:00Z");
        FakeCluster cluster = new FakeCluster();
        cluster.pods = Pods.ready(3, 1000, now.toEpochMilli());
        cluster.failingMetrics.add("queue");
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.externalAverage("queue", "2"));
        hpa.getMetadata().setAnnotations(Map.of(ControlAnnotations.FALLBACK_REPLICAS, "6", ControlAnnotations.FALLBACK_AFTER, "1m",
                ControlAnnotations.MODE, "Preview", ControlAnnotations.SYNC_PERIOD, "5s"));
        HistoryStore histories = new HistoryStore();
        cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(now, ZoneOffset.UTC)).reconcile(hpa);
        ReconcileOutcome o = cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(now.plusSeconds(60), ZoneOffset.UTC))
                .reconcile(hpa);
        assertThat(o.trace().metrics().get(0).fallback()).isTrue();

        HpaDecisions written = new HpaDecisions("default/web", true, HpaDecisions.Flags.of(ControllerConfig.defaults(), Duration.ofSeconds(15),
                List.of("autoscaling/v2")),
                histories.snapshot(HpaKey.parse("default/web")), List.of(o.trace()));
        String json = DecisionsJson.write(written);
        assertThat(json).as("times in RFC 3339, no -1 for none").contains("\"time\":\"2026-03-01T12:01:00Z\"")
                .contains("\"since\":\"2026-03-01T12:00:00Z\"").doesNotContain(":-1");
        assertThat(json).as("the trace's key in its wire form").contains("\"decisions\":[{\"hpa\":\"default/web\",");
        HpaDecisions read = DecisionsJson.read(json, HpaDecisions.class);

        assertThat(read.history().metricFailures()).containsExactly(new MetricFailures.MetricFailure("External/queue", now.toEpochMilli(), true));
        assertThat(read.history()).isEqualTo(written.history());
        DecisionTrace t = read.decisions().get(0);
        assertThat(t.hpa()).isEqualTo(HpaKey.parse("default/web"));
        assertThat(t.controls()).isEqualTo(o.trace().controls());
        assertThat(t.controls().preview()).isTrue();
        assertThat(t.controls().syncPeriodMillis()).isEqualTo(5000);
        assertThat(t.metrics().get(0).failingSince()).isEqualTo(now.toEpochMilli());
        assertThat(t.metrics().get(0).fallback()).isTrue();
        assertThat(t.time()).isEqualTo(o.trace().time());
        assertThat(t.metrics().get(0).timestamp()).isEqualTo(o.trace().metrics().get(0).timestamp());
        assertThat(List.of(t.currentReplicas(), t.minReplicas(), t.maxReplicas(), t.selectedMetric(), t.rawDesiredReplicas(), t.desiredReplicas()))
                .isEqualTo(List.of(o.trace().currentReplicas(), o.trace().minReplicas(), o.trace().maxReplicas(), o.trace().selectedMetric(),
                        o.trace().rawDesiredReplicas(), o.trace().desiredReplicas()));
        assertThat(t.controls().cpuInitializationPeriodMillis()).as("-1: the flag's").isEqualTo(-1);
    }

    /** Issue 40: each metric says how old its sample was at the sync, in ms. */
    @Test
    void eachMetricCarriesItsSamplesAgeAtTheSync() throws Exception {
        Instant now = Instant.parse("2026-03-01T12:00:00Z");
        FakeCluster cluster = new FakeCluster();
        cluster.scale = new io.hpacontroller.core.model.ScaleTarget(2, 2, "app=web", "1");
        cluster.pods = Pods.ready(2, 1000, now.toEpochMilli());
        cluster.podUsage = Pods.cpuUsage(now.toEpochMilli() - 4500, 800, 800);
        ReconcileOutcome o = cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), Clock.fixed(now, ZoneOffset.UTC))
                .reconcile(Specs.hpa(1, 10, Specs.cpuUtilization(50)));

        String json = DecisionsJson.write(new HpaDecisions("default/web", true, HpaDecisions.Flags.of(ControllerConfig.defaults(),
                Duration.ofSeconds(15), List.of("autoscaling/v2")), new HistoryStore().snapshot(HpaKey.parse("default/web")), List.of(o.trace())));

        assertThat(json).containsPattern("\"timestamp\" ?: ?\"2026-03-01T11:59:55.500Z\"").containsPattern("\"ageMillis\" ?: ?4500");
        assertThat(DecisionsJson.read(json, HpaDecisions.class).decisions().get(0).metrics().get(0).ageMillis()).isEqualTo(4500);
    }
}
