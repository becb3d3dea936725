package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Metric data no metrics API should return: refused with a reason where it would mislead, computed like upstream where it does not. */
class BadMetricDataTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long T = NOW.toEpochMilli();
    private static final long YEAR = 365L * 24 * Pods.AN_HOUR;

    private final FakeCluster cluster = new FakeCluster();

    @BeforeEach
    void fourReadyPods() {
        cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
        cluster.pods = Pods.ready(4, 1000, T);
    }

    private ReconcileOutcome sync(MetricSpec... metrics) {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 20, metrics);
        return cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), Clock.fixed(NOW, ZoneOffset.UTC)).reconcile(hpa);
    }

    private static HorizontalPodAutoscalerCondition scalingActive(ReconcileOutcome o) {
        return o.status().getConditions().stream().filter(c -> "ScalingActive".equals(c.getType())).findFirst().orElseThrow();
    }

    private void assertRefused(ReconcileOutcome o, String reason, String message) {
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(scalingActive(o).getStatus()).isEqualTo("False");
        assertThat(scalingActive(o).getReason()).isEqualTo(reason);
        assertThat(scalingActive(o).getMessage()).contains(message);
        assertThat(cluster.eventReasons()).containsExactly(reason, "FailedComputeMetricsReplicas");
        assertThat(cluster.events.get(0).message()).contains(message);
        assertThat(o.error()).isEqualTo(ReconcileOutcome.ErrorKind.INTERNAL);
    }

    // ---- negative values ----

    @Test
    void aNegativeCpuUsageFailsTheMetric() {
        // without the check: (100 + 100 + 100 - 2000) / 4000 = -42 % of request, a proposal of 0 replicas
        cluster.podUsage = Pods.cpuUsage(T, 100, 100, 100, -2000);
        assertRefused(sync(Specs.cpuUtilization(50)), "FailedGetResourceMetric",
                "cpu usage of container app of pod pod-3 is negative (-2): refusing to compute a replica count from it");
    }

    @Test
    void aNegativeContainerUsageIsNotHiddenByTheOtherContainers() {
        cluster.podUsage = List.of(new PodUsage("pod-0", T, Pods.WINDOW, List.of(
                new ContainerUsage("app", ResourceAmounts.of(Map.of("cpu", 900L))),
                new ContainerUsage("sidecar", ResourceAmounts.of(Map.of("cpu", -500L))))));
        assertRefused(sync(Specs.cpuUtilization(50)), "FailedGetResourceMetric", "cpu usage of container sidecar of pod pod-0 is negative (-500m)");
    }

    @Test
    void aNegativePodsMetricSampleFailsTheMetric() {
        cluster.podsMetrics.put("qps", Pods.samples(T, 10_000, 10_000, -1, 10_000));
        assertRefused(sync(Specs.podsAverage("qps", "10")), "FailedGetPodsMetric",
                "the metric sample of pod pod-2 is negative (-1m)");
    }

    @Test
    void aNegativeObjectValueFailsTheMetric() {
        cluster.objectMetrics.put("rps", new MetricsSource.ObjectMetricValue(-5000, T));
        assertRefused(sync(Specs.objectValue("rps", "10")), "FailedGetObjectMetric", "the metric value is negative (-5)");
    }

    @Test
    void aNegativeExternalValueFailsTheMetricEvenWhenTheSumIsPositive() {
        cluster.externalMetrics.put("queue", List.of(50_000L, -1_000L));
        assertRefused(sync(Specs.externalValue("queue", "10")), "FailedGetExternalMetric", "an external metric value is negative (-1)");
        cluster.events.clear();
        assertRefused(sync(Specs.externalAverage("queue", "10")), "FailedGetExternalMetric", "an external metric value is negative (-1)");
    }

    @Test
    void aNegativeMetricDoesNotBlockAScaleUpByAnotherButBlocksAScaleDown() {
        cluster.podsMetrics.put("qps", Pods.samples(T, -1, -1, -1, -1));
        cluster.podUsage = Pods.cpuUsage(T, 1000, 1000, 1000, 1000);
        assertThat(sync(Specs.cpuUtilization(50), Specs.podsAverage("qps", "10")).desiredReplicas()).isEqualTo(8);
        assertThat(cluster.scaleWrites).containsExactly(8);

        cluster.scaleWrites.clear();
        cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
        cluster.podUsage = Pods.cpuUsage(T, 100, 100, 100, 100);
        ReconcileOutcome o = sync(Specs.cpuUtilization(50), Specs.podsAverage("qps", "10"));
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(scalingActive(o).getReason()).isEqualTo("FailedGetPodsMetric");
    }

    // ---- duplicates ----

    @Test
    void aPodListedTwiceByTheMetricsApiFailsTheMetric() {
        List<PodUsage> usage = new ArrayList<>(Pods.cpuUsage(T, 500, 500, 500, 500));
        usage.add(Pods.usage("pod-1", "cpu", 4000, T));
        cluster.podUsage = usage;
        assertRefused(sync(Specs.cpuUtilization(50)), "FailedGetResourceMetric",
                "the resource metrics API returned more than one sample for pod pod-1: refusing to pick one");
    }

    // ---- empty answers ----

    @Test
    void emptyAnswersFailTheMetric() {
        cluster.podUsage = List.of();
        assertRefused(sync(Specs.cpuUtilization(50)), "FailedGetResourceMetric", "no metrics returned from resource metrics API");
        cluster.events.clear();
        assertRefused(sync(Specs.podsAverage("qps", "10")), "FailedGetPodsMetric", "no metrics returned from custom metrics API");
        cluster.events.clear();
        cluster.externalMetrics.put("queue", List.of());
        assertRefused(sync(Specs.externalValue("queue", "10")), "FailedGetExternalMetric", "no metrics returned from external metrics API");
    }

    @Test
    void samplesForPodsTheSelectorDoesNotMatchAreIgnored() {
        cluster.podUsage = List.of(Pods.usage("stranger", "cpu", 1000, T));
        assertRefused(sync(Specs.cpuUtilization(50)), "FailedGetResourceMetric", "no metrics returned matched known pods");
    }

    // ---- enormous values ----

    @Test
    void enormousValuesScaleToTheLimitsNeverPastThem() {
        cluster.podUsage = Pods.cpuUsage(T, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        ReconcileOutcome o = sync(Specs.cpuUtilization(50));
        assertThat(o.proposedReplicas()).as("the utilization saturates at MaxInt32 percent").isPositive();
        assertThat(cluster.scaleWrites).containsExactly(8);
        assertThat(o.status().getCurrentMetrics().get(0).getResource().getCurrent().getAverageUtilization()).isEqualTo(Integer.MAX_VALUE);

        cluster.scaleWrites.clear();
        cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
        cluster.externalMetrics.put("queue", List.of(Long.MAX_VALUE, Long.MAX_VALUE));
        o = sync(Specs.externalValue("queue", "1m"));
        assertThat(o.proposedReplicas()).isEqualTo(Integer.MAX_VALUE);
        assertThat(cluster.scaleWrites).containsExactly(8);
        assertThat(o.status().getCurrentMetrics().get(0).getExternal().getCurrent().getValue().toString()).isEqualTo("9223372036854775807m");
    }

    // ---- timestamps: ignored like upstream, except by the CPU readiness rule ----

    @Test
    void sampleTimesInTheFutureOrLongAgoDoNotChangeADecision() {
        for (long timestamp : new long[]{T, T + YEAR, T - YEAR, 0, Long.MAX_VALUE}) {
            cluster.scaleWrites.clear();
            cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
            cluster.podsMetrics.put("qps", Pods.samples(timestamp, 20_000, 20_000, 20_000, 20_000));
            cluster.podUsage = Pods.cpuUsage(timestamp, 800, 800, 800, 800);
            sync(Specs.podsAverage("qps", "10"));
            cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
            sync(Specs.cpuUtilization(50));
            assertThat(cluster.scaleWrites).as("timestamp %d", timestamp).containsExactly(8, 7);
        }
    }

    @Test
    void duringCpuInitializationASampleFromBeforeReadinessIsUnreadyAndAFutureOneIsNot() {
        // pods started a minute ago, ready for 30 s: inside the 5 minute CPU initialization period
        List<PodInfo> young = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            young.add(new PodInfo("pod-" + i, PodPhase.RUNNING, ReadyStatus.TRUE, T - 30_000, T - 60_000, false,
                    new ContainerInfo[]{new ContainerInfo("app", ResourceAmounts.of(Map.of("cpu", 1000L)))}, null));
        }
        cluster.pods = young;
        cluster.podUsage = Pods.cpuUsage(T - 45_000, 1000, 1000, 1000, 1000);  // taken before the pods were ready
        assertRefused(sync(Specs.cpuUtilization(50)), "FailedGetResourceMetric", "did not receive metrics for targeted pods");

        cluster.events.clear();
        cluster.podUsage = Pods.cpuUsage(T + YEAR, 1000, 1000, 1000, 1000);  // "taken" a year from now: a whole window after readiness
        sync(Specs.cpuUtilization(50));
        assertThat(cluster.scaleWrites).containsExactly(8);
    }
}
