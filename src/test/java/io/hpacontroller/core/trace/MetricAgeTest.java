package io.hpacontroller.core.trace;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.reconcile.ControllerConfig;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 40: each metric of a decision trace says how old its sample was at the sync. */
class MetricAgeTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long NOW_MILLIS = NOW.toEpochMilli();

    private final FakeCluster cluster = new FakeCluster();

    private MetricTrace cpuSampledAt(long sampleTime) {
        cluster.scale = new ScaleTarget(2, 2, "app=web", "1");
        cluster.pods = Pods.ready(2, 1000, NOW_MILLIS);
        cluster.podUsage = Pods.cpuUsage(sampleTime, 800, 800);
        return cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), Clock.fixed(NOW, ZoneOffset.UTC))
                .reconcile(Specs.hpa(1, 10, Specs.cpuUtilization(50))).trace().metrics().get(0);
    }

    @Test
    void theSamplesAgeIsTheSyncsTimeMinusItsTimestamp() {
        MetricTrace m = cpuSampledAt(NOW_MILLIS - 1200);
        assertThat(m.timestamp()).isEqualTo(NOW_MILLIS - 1200);
        assertThat(m.ageMillis()).isEqualTo(1200);
        assertThat(m.sampledBeforeSync()).isEqualTo("cpu sampled 1.2 s before this sync");
    }

    @Test
    void aSampleStampedAfterTheSyncIsNoOlderThanZeroAndAnUnknownTimeHasNoAge() {
        assertThat(cpuSampledAt(NOW_MILLIS + 300).sampledBeforeSync()).as("a clock skew").isEqualTo("cpu sampled 0.0 s before this sync");
        MetricTrace failed = new MetricTrace("External", "queue", null, null, Double.NaN, Double.NaN, 0, null, -1, "FailedGetExternalMetric",
                "unavailable", "unavailable", false);
        DecisionTrace t = DecisionTrace.builder(HpaKey.parse("default/web"), NOW_MILLIS).metrics(List.of(failed), -1, DecisionTrace.ALL_METRICS_FAILED, -1).build();
        assertThat(t.metrics().get(0).ageMillis()).isEqualTo(-1);
        assertThat(failed.sampledBeforeSync()).isNull();
    }
}
