package io.hpacontroller.core.calc;

import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The calculator at the edges of its numbers: saturation, clamping, negative and far-off values. */
class ReplicaCalculatorLimitsTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final long MAX = Long.MAX_VALUE;
    private static final Tolerances TOLERANCE = Tolerances.of(0.1);

    private final ReplicaCalculator calculator = new ReplicaCalculator(300_000, 30_000);

    @Test
    void hugeUsageClampsToMaxInt32Replicas() throws CalculationException {
        List<PodInfo> pods = Pods.ready(3, 1, NOW);
        Proposal u = calculator.utilization(3, 1, "cpu", "", TOLERANCE, pods, Pods.samples(NOW, MAX, MAX, MAX), NOW);
        assertThat(u.utilization()).isEqualTo(Integer.MAX_VALUE);
        assertThat(u.replicas()).isEqualTo(Integer.MAX_VALUE);
        assertThat(u.usage()).as("the sum saturates, then is divided").isEqualTo(MAX / 3);

        Proposal a = calculator.averageValue(3, 1, "", TOLERANCE, pods, Pods.samples(NOW, MAX, MAX, MAX), NOW);
        assertThat(a.replicas()).isEqualTo(Integer.MAX_VALUE);
        assertThat(calculator.value(3, 1, MAX, TOLERANCE, () -> pods).replicas()).isEqualTo(Integer.MAX_VALUE);
        assertThat(calculator.value(0, 1, MAX, TOLERANCE, () -> pods).replicas()).isEqualTo(Integer.MAX_VALUE);
        assertThat(calculator.averageOverReplicas(3, 1, MAX, TOLERANCE).replicas()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void hugeRequestsSaturateAndGiveZeroUtilization() throws CalculationException {
        List<PodInfo> pods = Pods.ready(3, MAX, NOW);
        Proposal u = calculator.utilization(3, 50, "cpu", "", TOLERANCE, pods, Pods.samples(NOW, 100, 100, 100), NOW);
        assertThat(u.utilization()).isZero();
        assertThat(u.replicas()).isZero();
    }

    @Test
    void theMissingPodFallbackDoesNotOverflow() throws CalculationException {
        // on a scale-down a pod without metrics counts as using its request times max(100, target) percent
        List<PodInfo> pods = Pods.ready(3, MAX / 2, NOW);
        Proposal u = calculator.utilization(3, 500, "cpu", "", TOLERANCE, pods,
                Map.of("pod-0", new PodMetric(1, NOW, 60_000), "pod-1", new PodMetric(1, NOW, 60_000)), NOW);
        assertThat(u.replicas()).isBetween(0, 3);
    }

    @Test
    void externalSumsSaturate() throws CalculationException {
        assertThat(ReplicaCalculator.sum(List.of(MAX, MAX, 5L))).isEqualTo(MAX);
        assertThat(ReplicaCalculator.sum(List.of(1L, 2L))).isEqualTo(3);
    }

    @Test
    void noStatusReplicasIsNotADivisionByZero() throws CalculationException {
        Proposal p = calculator.averageOverReplicas(0, 1000, 4500, TOLERANCE);
        assertThat(p.replicas()).isEqualTo(5);
        assertThat(calculator.averageOverReplicas(0, 1000, 0, TOLERANCE).usage()).isZero();
    }

    @Test
    void negativeSamplesAreRefusedEverywhere() {
        List<PodInfo> pods = Pods.ready(2, 1000, NOW);
        assertThatThrownBy(() -> calculator.utilization(2, 50, "cpu", "", TOLERANCE, pods, Pods.samples(NOW, 10, -10), NOW))
                .isInstanceOf(CalculationException.class).hasMessage("the metric sample of pod pod-1 is negative (-10m): refusing to compute a replica count from it");
        assertThatThrownBy(() -> calculator.averageValue(2, 50, "", TOLERANCE, pods, Pods.samples(NOW, -1, 10), NOW))
                .isInstanceOf(CalculationException.class).hasMessageContaining("pod pod-0 is negative (-1m)");
        assertThatThrownBy(() -> calculator.value(2, 50, -1000, TOLERANCE, () -> pods))
                .isInstanceOf(CalculationException.class).hasMessageContaining("the metric value is negative (-1)");
        assertThatThrownBy(() -> calculator.averageOverReplicas(2, 50, MAX + 1, TOLERANCE))
                .isInstanceOf(CalculationException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> ReplicaCalculator.sum(List.of(MAX, -1L)))
                .isInstanceOf(CalculationException.class).hasMessageContaining("an external metric value is negative (-1m)");
    }

    @Test
    void zeroIsAValue() throws CalculationException {
        List<PodInfo> pods = Pods.ready(4, 1000, NOW);
        assertThat(calculator.utilization(4, 50, "cpu", "", TOLERANCE, pods, Pods.samples(NOW, 0, 0, 0, 0), NOW).replicas()).isZero();
        assertThat(calculator.value(4, 50, 0, TOLERANCE, () -> pods).replicas()).isZero();
    }

    @Test
    void aPodListNamingAPodTwiceIsRefused() {
        List<PodInfo> pods = List.of(Pods.ready("pod-0", 1000, NOW), Pods.ready("pod-1", 1000, NOW), Pods.ready("pod-0", 1000, NOW));
        assertThatThrownBy(() -> calculator.utilization(3, 50, "cpu", "", TOLERANCE, pods, Pods.samples(NOW, 500, 500), NOW))
                .isInstanceOf(CalculationException.class)
                .hasMessage("the pod list names pod pod-0 twice: refusing to compute a replica count from it");
        assertThatThrownBy(() -> calculator.averageValue(3, 50, "", TOLERANCE, pods, Pods.samples(NOW, 500, 500), NOW))
                .isInstanceOf(CalculationException.class);
    }

    /** Samples for pods the selector does not match: upstream keeps them in plain averages, not in utilization. */
    @Test
    void samplesOfPodsNotInTheListCountLikeUpstream() throws CalculationException {
        List<PodInfo> pods = Pods.ready(2, 1000, NOW);
        Map<String, PodMetric> samples = new java.util.HashMap<>(Pods.samples(NOW, 100, 100));
        samples.put("stranger", new PodMetric(400, NOW, 60_000));
        assertThat(calculator.averageValue(2, 100, "", TOLERANCE, pods, samples, NOW).usage()).isEqualTo(200);
        Proposal u = calculator.utilization(2, 10, "cpu", "", TOLERANCE, pods, samples, NOW);
        assertThat(u.utilization()).isEqualTo(10);
        assertThat(u.replicas()).isEqualTo(2);
    }

    @Test
    void manyPodsWithNamesAlike() throws CalculationException {
        // one workload's pod names differ only in their last characters
        List<PodInfo> pods = new java.util.ArrayList<>();
        Map<String, PodMetric> samples = new java.util.HashMap<>();
        for (int i = 0; i < 5000; i++) {
            String name = "web-7d9f8c6b5-" + Integer.toString(i, 36);
            pods.add(Pods.ready(name, 1000, NOW));
            samples.put(name, new PodMetric(800, NOW, 60_000));
        }
        Proposal u = calculator.utilization(5000, 50, "cpu", "", TOLERANCE, pods, samples, NOW);
        assertThat(u.utilization()).isEqualTo(80);
        assertThat(u.replicas()).isEqualTo(8000);
    }

    @Test
    void aStartTimeFarInTheFutureDoesNotWrapIntoAReadyPod() {
        // start + initialization period would wrap past Long.MAX_VALUE into the past: upstream's time.Time does not wrap
        long farFuture = MAX - 1000;
        PodInfo pod = new PodInfo("pod-0", PodPhase.RUNNING, ReadyStatus.TRUE, farFuture, farFuture, false,
                new ContainerInfo[]{new ContainerInfo("app", ResourceAmounts.of(Map.of("cpu", 1000L)))}, null);
        PodMetric sample = new PodMetric(500, NOW, 60_000);
        assertThat(PodGroups.classify(pod, sample, true, 300_000, 30_000, NOW)).isEqualTo(PodGroups.Group.UNREADY);
        assertThat(PodGroups.classify(pod, sample, false, 300_000, 30_000, NOW)).as("only cpu looks at readiness times")
                .isEqualTo(PodGroups.Group.READY);
    }

    @Test
    void podsWithoutAnyTimesAreUnreadyForCpuOnly() {
        PodInfo pod = new PodInfo("pod-0", PodPhase.RUNNING, ReadyStatus.TRUE, PodInfo.NO_TIME, PodInfo.NO_TIME, false,
                new ContainerInfo[]{new ContainerInfo("app", ResourceAmounts.of(Map.of("cpu", 1000L)))}, null);
        PodMetric sample = new PodMetric(500, NOW, 60_000);
        assertThat(PodGroups.classify(pod, sample, true, 300_000, 30_000, NOW)).isEqualTo(PodGroups.Group.UNREADY);
        assertThat(PodGroups.classify(pod, sample, false, 300_000, 30_000, NOW)).isEqualTo(PodGroups.Group.READY);
    }
}
