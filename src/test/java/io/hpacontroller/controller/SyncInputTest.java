package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static io.hpacontroller.testing.Keys.key;
import static org.assertj.core.api.Assertions.assertThat;

class SyncInputTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void theSyncDecidesFromTheHpaTheStatusPortGivesNotTheDriversStaleCopy() {
        FakeCluster cluster = new FakeCluster();
        cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
        cluster.pods = Pods.ready(3, 1000, NOW.toEpochMilli());
        cluster.podUsage = Pods.cpuUsage(NOW.toEpochMilli(), 500, 500, 500);
        HistoryStore histories = new HistoryStore();
        HorizontalPodAutoscaler stale = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        ReconcileOutcome first = cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(NOW, ZoneOffset.UTC))
                .reconcile(stale); // the driver's cache does not hold this write yet
        HorizontalPodAutoscaler written = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        written.setStatus(first.status());
        List<HorizontalPodAutoscaler> controlsReadFrom = new ArrayList<>();

        SyncInput in = SyncInput.of(key("default/web"), stale, read -> read == stale ? written : read, // the API's, which holds the last write
                (key, current) -> {
                    controlsReadFrom.add(current);
                    return Parsed.valid(HpaControls.NONE);
                });
        ReconcileOutcome second = cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(NOW.plusSeconds(15), ZoneOffset.UTC))
                .reconcile(in.hpa(), in.controls());

        assertThat(second.statusWritten()).as("compared with the port's last write, not the stale copy").isFalse();
        assertThat(cluster.statusWrites).hasSize(1);
        assertThat(controlsReadFrom).as("the controls too are read from the HPA the port gave").containsExactly(written);
    }
}
