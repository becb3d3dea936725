package io.hpacontroller.ops;

import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.trace.DecisionTrace;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/** Successive traces of a steady HPA hold what did not change once; what changed is the newer trace's. */
class TraceSharingTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private final FakeCluster cluster = new FakeCluster();
    private final HistoryStore histories = new HistoryStore();
    private final HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));

    private DecisionTrace syncAt(long seconds, long... cpuMilli) {
        long at = NOW.plusSeconds(seconds).toEpochMilli();
        cluster.pods = Pods.ready(3, 1000, NOW.minusSeconds(600).toEpochMilli());
        cluster.podUsage = Pods.cpuUsage(at - 1000, cpuMilli);
        return cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(Instant.ofEpochMilli(at), ZoneOffset.UTC))
                .reconcile(hpa).trace();
    }

    @Test
    void aSteadyHpasNextTraceTakesWhatDidNotChangeFromItsLastOne() {
        DecisionTrace first = syncAt(0, 500, 500, 500);
        DecisionTrace second = syncAt(15, 500, 500, 500);
        assertThat(second).isNotEqualTo(first); // the time and the metric's timestamp
        assertThat(second.metrics().get(0).metric()).isEqualTo(first.metrics().get(0).metric()).isNotSameAs(first.metrics().get(0).metric());

        DecisionTrace shared = TraceSharing.share(first, second);

        assertThat(shared).isEqualTo(second);
        assertThat(shared.time()).isEqualTo(second.time());
        assertThat(shared.metrics().get(0).timestamp()).isEqualTo(second.metrics().get(0).timestamp()).isNotEqualTo(first.metrics().get(0).timestamp());
        assertThat(shared.metrics().get(0).metric()).isSameAs(first.metrics().get(0).metric());
        assertThat(shared.metrics().get(0).calculation()).isSameAs(first.metrics().get(0).calculation());
        assertThat(shared.normalization()).isNotNull().isSameAs(first.normalization());
        assertThat(shared.reason()).isSameAs(first.reason());
    }

    @Test
    void aChangedValueIsTheNewerTracesAndTheUnchangedAroundItAreShared() {
        DecisionTrace first = syncAt(0, 500, 500, 500);
        DecisionTrace second = syncAt(15, 900, 900, 900); // 90 % of the request: scale up

        DecisionTrace shared = TraceSharing.share(first, second);

        assertThat(shared).isEqualTo(second);
        assertThat(shared.desiredReplicas()).isEqualTo(second.desiredReplicas()).isGreaterThan(first.desiredReplicas());
        assertThat(shared.metrics().get(0).calculation()).isEqualTo(second.metrics().get(0).calculation())
                .isNotEqualTo(first.metrics().get(0).calculation());
        assertThat(shared.metrics().get(0).metric()).isSameAs(first.metrics().get(0).metric());
    }

    @Test
    void nothingToShareWithLeavesTheTraceAsItIs() {
        DecisionTrace only = syncAt(0, 500, 500, 500);
        assertThat(TraceSharing.share(null, only)).isSameAs(only);
        assertThat(TraceSharing.share(only, only)).isSameAs(only);
    }
}
