package io.hpacontroller.testing.node;

import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 26, scenario e: a rolling update under a steady load gives no scale-up (kubernetes/kubernetes #72775,
 * #138505). The new ReplicaSet's pods spin at their CPU limit (10 times their request) for the 45 s they take to
 * become Ready, as a JVM warming up does, and the metrics show it; the chart's default install on a mirror HPA
 * ignores them as upstream does (not Ready, or measured before they were, within the CPU initialization period),
 * so the count stays at 3 through the rollout and three syncs after it. Counted in the one direction it did,
 * the surge pod would ask for 9 or 10 replicas.
 */
@RealNodeTest
class RollingUpdateNodeIT {

    private static final Duration LONG = Duration.ofMinutes(4);

    @Test
    void aRolloutOfPodsThatBurnCpuWhileStartingGivesNoScaleUp(RealNode node, ControllerRelease release) {
        TestNamespace ns = node.newNamespace("rollout");
        try (Timeline t = new Timeline("rolling-update");
             CpuWorkload web = CpuWorkload.create(node, ns.name(), "web", 3, CpuWorkload.Shape.of("20m", Duration.ofSeconds(5)))) {
            t.watchReplicas(node, ns.name(), "web");
            web.demand(24); // 8m a pod: 40 % of the request, under the 50 % target, above nothing
            await("3 web pods Ready").atMost(LONG).until(() -> web.readyPods().size() == 3);
            // the steady state, before the HPA exists: a first sample that still holds a pod's start-up read 12m (60 %) on a
            // loaded node (a .ci/run of 2026-11-28) and scaled 3 -> 4 before the rollout
            await("metrics.k8s.io: 3 pods under the target (10m)").atMost(LONG).pollInterval(Duration.ofSeconds(2)).until(() -> {
                Map<String, Long> cpu = node.podCpuMillis(ns.name());
                return cpu.size() == 3 && cpu.values().stream().allMatch(m -> m < 10);
            });
            NodeHpas.create(node.adminClient(), HpaApi.MIRROR, ns.name(), NodeHpas.cpuHpa("web", 3, 10, 300));
            t.watchHpa(node, HpaApi.MIRROR, ns.name(), "web");
            t.mark("mirror HPA web: 3 pods at 8m of 20m, target 50 %, min 3, max 10");
            await("the HPA to read the metric near 40 %").atMost(LONG).until(() -> {
                var hpa = NodeHpas.read(node.adminClient(), HpaApi.MIRROR, ns.name(), "web");
                return "True ValidMetricFound".equals(NodeHpas.condition(hpa, "ScalingActive")) && utilization(hpa) > 0 && utilization(hpa) < 50;
            });
            assertThat(t.steps(ns.name(), "web")).as("steady before the rollout").isEmpty();

            Instant rollout = Instant.now();
            web.rollOut(Duration.ofSeconds(45), true);
            t.mark("rollout: new pods spin at 200m (10x their request) for the 45 s before they are Ready");
            await("a surge pod's start-up burn to show in metrics.k8s.io").atMost(LONG).pollInterval(Duration.ofSeconds(2))
                    .until(() -> node.podCpuMillis(ns.name()).values().stream().anyMatch(m -> m >= 100));
            t.mark("metrics.k8s.io: " + node.podCpuMillis(ns.name()));
            await("the rollout to finish").atMost(Duration.ofMinutes(8)).pollInterval(Duration.ofSeconds(2)).until(web::rolledOut);
            t.mark("rolled out; metrics.k8s.io: " + node.podCpuMillis(ns.name()));
            long during = metricReads(node, release, ns, rollout);
            await("three more syncs of the HPA (its metric reads)").atMost(LONG).pollInterval(Duration.ofSeconds(2))
                    .until(() -> metricReads(node, release, ns, rollout) >= during + 3);
            t.mark(metricReads(node, release, ns, rollout) + " syncs since the rollout began; conditions "
                    + NodeHpas.conditions(NodeHpas.read(node.adminClient(), HpaApi.MIRROR, ns.name(), "web")));
            assertThat(during).as("the HPA was synced during the rollout").isGreaterThanOrEqualTo(3);
            assertThat(t.steps(ns.name(), "web")).as("no scale through the rollout and after it").isEmpty();
        } finally {
            release.saveLogs();
        }
    }

    private static int utilization(io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler hpa) {
        var m = hpa.getStatus().getCurrentMetrics();
        if (m == null || m.isEmpty() || m.get(0).getResource() == null || m.get(0).getResource().getCurrent().getAverageUtilization() == null) {
            return -1;
        }
        return m.get(0).getResource().getCurrent().getAverageUtilization();
    }

    /** The controller's reads of metrics.k8s.io in the namespace since {@code from}: one per sync of its one HPA. */
    private static long metricReads(RealNode node, ControllerRelease release, TestNamespace ns, Instant from) {
        return node.plane().audit().count(AuditEvent.Filter.all().user(release.user()).since(from).namespace(ns.name()).apiGroup("metrics.k8s.io"));
    }
}
