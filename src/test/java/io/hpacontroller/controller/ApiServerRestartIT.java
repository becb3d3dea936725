package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKubeExtension;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.Order;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * kube-apiserver restarts under a running controller (same etcd): the informers resume without a relist
 * storm, the controller scales again, and the first decision after the restart is made from the state
 * after it (a replica count changed right after the restart). The shared control plane is this class's
 * alone while it runs (the other classes wait on the lock).
 */
@ExtendWith(RealKubeExtension.class)
@ResourceLock(value = RealKubeExtension.SHARED_PLANE, mode = ResourceAccessMode.READ_WRITE)
@Order(RealKubeExtension.ORDER_PLANE_TO_ITSELF)
class ApiServerRestartIT {

    /** The controller's informers: HPAs, Pods, Deployments. */
    private static final int INFORMERS = 3;
    /**
     * Every 5 s, not every second: on a loaded machine the metrics APIs answer again some 45 s after a restart, and
     * every failed sync meanwhile posts two or three Warning events. At one sync a second they would spend the HPA's
     * 25 events of the spam filter (upstream's, refilled at one per 5 minutes), and drop the rescale's event.
     */
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(5);

    private static InProcessController steadyAtTheTarget(KubeControlPlane kube, TestNamespace ns) {
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "50m", "64Mi"); // at the target
        // at most 2 pods more per minute: one scale-up in this test, from whatever count the controller read
        ns.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(10).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric()
                .withNewBehavior().withNewScaleUp().withStabilizationWindowSeconds(0).addNewPolicy().withType("Pods").withValue(2).withPeriodSeconds(60)
                .endPolicy().endScaleUp().endBehavior().endSpec().build());
        InProcessController controller = InProcessController.start(ChartReleases.shipped(kube).client(),
                ScaleTargetsIT.options(ns).withSyncPeriod(SYNC_PERIOD), null);
        String key = ns.name() + "/web";
        await().atMost(Waits.STATE).until(() -> {
            HorizontalPodAutoscaler h = ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get();
            return controller.syncsOf(key) >= 3 && h.getStatus() != null && h.getStatus().getCurrentMetrics() != null
                    && h.getStatus().getCurrentMetrics().stream().allMatch(m -> "Resource".equals(m.getType()));
        });
        return controller;
    }

    private static List<String> rescales(TestNamespace ns) {
        return ns.admin().v1().events().inNamespace(ns.name()).withField("reason", "SuccessfulRescale").list().getItems().stream()
                .map(e -> e.getMessage().substring(0, e.getMessage().indexOf(';'))).toList();
    }

    @Test
    void afterARestartTheInformersResumeWithoutARelistStormAndTheControllerScalesAgain(KubeControlPlane kube, TestNamespace ns) {
        ChartRelease release = ChartReleases.shipped(kube);
        KubernetesClient admin = ns.admin();
        String key = ns.name() + "/web";
        try (InProcessController controller = steadyAtTheTarget(kube, ns)) {
            kube.audit().sync();
            Instant restart = Instant.now();
            kube.restartApiServer();
            ns.metrics().podUsage("app=web", "100m", "64Mi"); // twice the target: 2 -> 4

            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas()).isEqualTo(4);
                assertThat(rescales(ns)).containsExactly("New size: 4");
            });
            long syncsAfter = controller.syncsOf(key);
            await().atMost(Waits.STATE).until(() -> controller.syncsOf(key) >= syncsAfter + 3);

            AuditEvent.Filter byController = AuditEvent.Filter.all().user(release.user()).since(restart);
            List<AuditEvent> lists = kube.audit().events(byController.verb("list"));
            assertThat(lists.stream().filter(e -> e.apiGroup() == null || !e.apiGroup().contains("metrics")).toList())
                    .as("at most one relist per informer after the restart").hasSizeLessThanOrEqualTo(INFORMERS);
            assertThat(kube.audit().events(byController.resource("deployments").subresource("scale").writes().code(200)))
                    .as("one scale write after the restart").hasSize(1);
        }
    }

    @Test
    void theFirstScaleAfterARestartIsComputedFromTheCountChangedRightAfterIt(KubeControlPlane kube, TestNamespace ns) {
        KubernetesClient admin = ns.admin();
        try (InProcessController controller = steadyAtTheTarget(kube, ns)) {
            kube.restartApiServer();
            admin.apps().deployments().inNamespace(ns.name()).withName("web").scale(3); // someone scales right after the restart
            // twice the target: up to 5 from 3 (the policy's limit; 4 while the third pod is not Ready yet, which
            // counts as idle on a scale-up), never 4 from the stale 2
            ns.metrics().podUsage("app=web", "100m", "64Mi");

            await().atMost(Waits.STATE).until(() ->
                    admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas() == 5);
            // the sync is reported when it ends, after its status write: the scale can be seen before
            await().atMost(Waits.STATE).untilAsserted(() -> {
                List<SyncReport> rescaled = controller.syncs(ns.name() + "/web").stream().filter(r -> r.outcome().rescaled()).toList();
                assertThat(rescaled).as("the rescales after the restart").isNotEmpty()
                        .allSatisfy(r -> assertThat(r.outcome().currentReplicas()).as("decided from the count the write was guarded by").isGreaterThanOrEqualTo(3));
            });
        }
    }
}
