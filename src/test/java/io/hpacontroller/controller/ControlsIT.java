package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.FakeMetricsServer;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Preview and Suspended modes (issue 15) against a real API server, checked in its audit log: Preview
 * writes the HPA's status and never the scale; Suspended reads no metric at all and writes its one condition. A mode
 * changed or broken leaves no condition of the mode it left (issue 38.3).
 */
@RealKube
class ControlsIT {

    private static HorizontalPodAutoscaler annotated(HorizontalPodAutoscaler h, String mode) {
        h.getMetadata().setAnnotations(new HashMap<>(Map.of(ControlAnnotations.MODE, mode)));
        return h;
    }

    private static HorizontalPodAutoscaler read(TestNamespace ns, String name) {
        return ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName(name).get();
    }

    @Test
    void previewNeverWritesTheScaleAndSuspendedReadsNoMetric(KubeControlPlane kube, TestNamespace ns) {
        ChartRelease release = ChartReleases.shipped(kube);
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("web", 2));
        ns.create(Workloads.deployment("api", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi"); // twice the 50 % target: 4 replicas
        ns.metrics().externalMetric("api_queue", "100"); // 10 replicas at 10 each
        ns.create(annotated(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)), "Preview"));
        ns.create(annotated(hpa(ns.name(), "api", "apps/v1", "Deployment", "api", 1, 10, externalAverage("api_queue", "10")), "Suspended"));

        try (InProcessController controller = ScaleTargetsIT.controllerAsServiceAccount(kube, ns)) {
            await().atMost(Waits.STATE).untilAsserted(() -> {
                HorizontalPodAutoscaler web = read(ns, "web");
                assertThat(web.getStatus()).isNotNull();
                assertThat(web.getStatus().getDesiredReplicas()).as("what it would do").isEqualTo(4);
                assertThat(LiveTestBase.condition(web, "AbleToScale")).isEqualTo("False/Preview");
                assertThat(LiveTestBase.condition(read(ns, "api"), "ScalingActive")).isEqualTo("False/Suspended");
            });
            long web = controller.syncsOf(ns.name() + "/web");
            long api = controller.syncsOf(ns.name() + "/api");
            await().atMost(Waits.STATE).until(() -> controller.syncsOf(ns.name() + "/web") >= web + 5
                    && controller.syncsOf(ns.name() + "/api") >= api + 5);
            kube.audit().sync();

            assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas()).isEqualTo(2);
            assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("api").get().getSpec().getReplicas()).isEqualTo(2);
            assertThat(ns.count(ns.audit().user(release.user()).writes().resource("deployments"))).as("no scale write in the audit log").isZero();
            assertThat(ns.count(ns.audit().user(release.user()).writes().resource("horizontalpodautoscalers").name("web")))
                    .as("Preview writes the status").isPositive();
            assertThat(ns.count(ns.audit().user(release.user()).writes().resource("horizontalpodautoscalers").name("api")))
                    .as("Suspended: its one condition, written once").isEqualTo(1);
            assertThat(ns.metrics().requests(FakeMetricsServer.Api.RESOURCE)).as("Preview reads its metric").isPositive();
            assertThat(ns.metrics().requests(FakeMetricsServer.Api.EXTERNAL)).as("Suspended: no metrics request at all").isZero();
        }
    }

    private static final String MIRROR = """
            apiVersion: autoscaling.hpa-controller.io/v1
            kind: HorizontalPodAutoscaler
            metadata: {name: web, namespace: %s}
            spec:
              mode: Preview
              scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
              minReplicas: 1
              maxReplicas: 10
              metrics:
              - type: Resource
                resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
            """;

    /** Issue 38.3 as a user met it: {@code spec.mode: Preview}, then {@code Suspended}, then no mode and a misspelled annotation. */
    @Test
    void aMirrorHpaShowsOnlyTheConditionsOfItsCurrentMode(KubeControlPlane kube, TestNamespace ns) {
        ChartRelease release = ChartReleases.mirror(kube); // installs the mirror API's CRD
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        LiveFixtures.apply(ns, HpaApi.MIRROR, MIRROR.formatted(ns.name()));
        try (InProcessController controller = InProcessController.start(release.client(), LiveFixtures.reconciling(ns, HpaApi.MIRROR), null)) {
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(conditions(ns)).contains("AbleToScale False Preview"));

            edit(ns, h -> {
                spec(h).put("mode", "Suspended");
                return h;
            });
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(conditions(ns)).contains("ScalingActive False Suspended")
                    .noneMatch(c -> c.startsWith("AbleToScale")));

            edit(ns, h -> {
                spec(h).remove("mode");
                h.getMetadata().setAnnotations(Map.of(ControlAnnotations.PREFIX + "mdoe", "Preview"));
                return h;
            });
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(conditions(ns)).contains("ScalingActive False InvalidAnnotation")
                    .noneMatch(c -> c.contains("Suspended") || c.contains("Preview")));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource h) {
        return (Map<String, Object>) h.getAdditionalProperties().get("spec");
    }

    /** The change made on the latest HPA: one that meets a status write of the controller (409) is made again. */
    private static void edit(TestNamespace ns, UnaryOperator<GenericKubernetesResource> change) {
        await().atMost(Waits.STATE).ignoreExceptionsMatching(e -> e instanceof KubernetesClientException k && k.getCode() == 409).until(() -> {
            LiveFixtures.hpas(ns, HpaApi.MIRROR).inNamespace(ns.name()).withName("web").edit(change);
            return true;
        });
    }

    private static List<String> conditions(TestNamespace ns) {
        HorizontalPodAutoscaler h = LiveFixtures.read(ns, HpaApi.MIRROR, "web");
        return h.getStatus() == null || h.getStatus().getConditions() == null ? List.of()
                : h.getStatus().getConditions().stream().map(c -> c.getType() + " " + c.getStatus() + " " + c.getReason()).toList();
    }
}
