package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.ApiDiscovery;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.scale.ScaleSubresource;
import io.hpacontroller.controller.ScaleTargetsIT;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * HPA status and scale writes against a real API server: the status goes through the status
 * subresource and only when it changed; a write guarded by a stale resourceVersion is refused with 409
 * (the fabric8 mock server accepts it).
 */
@RealKube
class StatusWritesIT {

    @Test
    void theStatusIsWrittenThroughTheStatusSubresourceAndNotAgainWhileNothingChanges(KubeControlPlane kube, TestNamespace ns) {
        ChartRelease release = ChartReleases.shipped(kube);
        ns.create(Workloads.deployment("web", 3));
        ns.metrics().podUsage("app=web", "50m", "64Mi"); // exactly the 50 % target: nothing to scale
        ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        String key = ns.name() + "/web";
        try (InProcessController controller = ScaleTargetsIT.controllerAsServiceAccount(kube, ns)) {
            await().atMost(Waits.STATE).untilAsserted(() -> {
                HorizontalPodAutoscaler h = ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get();
                assertThat(h.getStatus()).isNotNull();
                assertThat(h.getStatus().getCurrentMetrics()).singleElement().satisfies(m -> {
                    assertThat(m.getType()).isEqualTo("Resource"); // before the pods run, the metric fails
                    assertThat(m.getResource().getCurrent().getAverageUtilization()).isEqualTo(50);
                });
                assertThat(h.getStatus().getCurrentReplicas()).isEqualTo(3);
            });
            kube.audit().sync();
            Instant steady = Instant.now();
            long before = controller.syncsOf(key);
            await().atMost(Waits.STATE).until(() -> controller.syncsOf(key) >= before + 5);

            AuditEvent.Filter byController = ns.audit().user(release.user()).resource("horizontalpodautoscalers").name("web");
            assertThat(ns.count(byController.since(steady).writes())).as("%d syncs with nothing new: no write", controller.syncsOf(key) - before)
                    .isZero();
            List<AuditEvent> writes = kube.audit().events(byController.writes());
            assertThat(writes).isNotEmpty().allSatisfy(e -> {
                assertThat(e.verb()).isEqualTo("update");
                assertThat(e.subresource()).as("only the status subresource").isEqualTo("status");
                assertThat(e.code()).isEqualTo(200);
            });
            assertThat(ns.count(ns.audit().user(release.user()).writes().resource("deployments"))).as("no scale write").isZero();
            HorizontalPodAutoscaler stored = ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get();
            assertThat(stored.getMetadata().getManagedFields())
                    .as("the controller caches HPAs without managedFields, and a status written without them leaves the server's as they were")
                    .anySatisfy(f -> assertThat(f.getSubresource()).as("the creator's entry").isNullOrEmpty())
                    .anySatisfy(f -> assertThat(f.getSubresource()).as("the status writer's entry").isEqualTo("status"));
        }
    }

    @Test
    void aStatusWriteOnAStaleResourceVersionMeetsAConflictAndIsWrittenOnTheLatestHpa(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease release = ChartReleases.shipped(kube);
        HorizontalPodAutoscaler created = ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        // someone changes the spec after the controller read the HPA
        ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web")
                .edit(h -> {
                    h.getSpec().setMaxReplicas(12);
                    return h;
                });
        Instant start = Instant.now();
        try (KubernetesClient client = release.client()) {
            KubeApi api = new KubeApi(client, Duration.ofSeconds(10));
            new HpaStatusUpdater(api, WriteGate.alwaysOpen()).write(created,
                    new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(3).build());
        }
        HorizontalPodAutoscaler stored = ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get();
        assertThat(stored.getStatus().getDesiredReplicas()).isEqualTo(3);
        assertThat(stored.getSpec().getMaxReplicas()).as("the status write kept the newer spec").isEqualTo(12);
        assertThat(kube.audit().events(ns.audit().user(release.user()).since(start).name("web")))
                .extracting(e -> e.verb() + " " + (e.subresource() == null ? "" : e.subresource()) + " " + e.code())
                .containsExactly("update status 409", "get  200", "update status 200");
    }

    @Test
    void aScaleWriteOnAStaleResourceVersionIsRefused(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease release = ChartReleases.shipped(kube);
        ns.create(Workloads.deployment("web", 2));
        var target = new CrossVersionObjectReferenceBuilder().withApiVersion("apps/v1").withKind("Deployment").withName("web").build();
        try (KubernetesClient client = release.client()) {
            KubeApi api = new KubeApi(client, Duration.ofSeconds(10));
            ScaleSubresource scales = new ScaleSubresource(api, new ApiDiscovery(api, Clock.systemUTC()), WriteGate.alwaysOpen());
            ScaleTarget read = scales.get(ns.name(), target);
            assertThat(read.specReplicas()).isEqualTo(2);
            assertThat(read.selector()).isEqualTo("app=web");
            ns.admin().apps().deployments().inNamespace(ns.name()).withName("web").scale(5); // kubectl scale, after our read
            Instant start = Instant.now();
            assertThatThrownBy(() -> scales.update(ns.name(), target, read, 3)).isInstanceOf(ApiException.Conflict.class)
                    .hasMessageContaining("the object has been modified");
            assertThat(kube.audit().events(ns.audit().user(release.user()).since(start).resource("deployments").subresource("scale")))
                    .extracting(e -> e.verb() + " " + e.code()).containsExactly("update 409");
        }
        assertThat(ns.admin().apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas()).isEqualTo(5);
    }
}
