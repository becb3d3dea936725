package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scale subresource of every kind of target on a real API server, written by the controller as the
 * chart's ServiceAccount: Deployment (the decision reaches the ReplicaSet's pods, up and down),
 * StatefulSet, ReplicaSet, and a custom resource whose scale selector is at a custom path.
 */
@RealKube
public class ScaleTargetsIT {

    public static ControllerOptions options(TestNamespace ns) {
        return LiveFixtures.fastOptions().withSyncPeriod(Duration.ofSeconds(1)).withNamespaces(List.of(ns.name()));
    }

    public static InProcessController controllerAsServiceAccount(KubeControlPlane kube, TestNamespace ns) {
        return InProcessController.start(ChartReleases.shipped(kube).client(), options(ns), null);
    }

    public static List<Pod> readyPods(TestNamespace ns, String app) {
        return ns.admin().pods().inNamespace(ns.name()).withLabel("app", app).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null
                        && p.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")))
                .toList();
    }

    private static long scaleWrites(KubeControlPlane kube, TestNamespace ns, String resource, String name) {
        return ns.count(ns.audit().user(ChartReleases.shipped(kube).user()).verb("update", "patch").resource(resource)
                .subresource("scale").name(name).code(200));
    }

    @Test
    void aDeploymentIsScaledUpAndDownAndItsReplicaSetsPodsFollow(KubeControlPlane kube, TestNamespace ns) {
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi"); // 100 % of the request against a 50 % target
        ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        try (InProcessController controller = controllerAsServiceAccount(kube, ns)) {
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas()).isEqualTo(4);
                List<Pod> pods = readyPods(ns, "web");
                assertThat(pods).hasSize(4).allSatisfy(p -> assertThat(p.getMetadata().getOwnerReferences())
                        .singleElement().satisfies(o -> assertThat(o.getKind()).isEqualTo("ReplicaSet")));
            });
            ns.metrics().podUsage("app=web", "10m", "64Mi"); // 10 %: one pod is enough
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas()).isEqualTo(1);
                assertThat(admin.pods().inNamespace(ns.name()).withLabel("app", "web").list().getItems()).hasSize(1);
            });
        }
        assertThat(scaleWrites(kube, ns, "deployments", "web")).as("2 -> 4 -> 1 through deployments/scale").isEqualTo(2);
    }

    @Test
    void aStatefulSetIsScaledThroughItsScaleSubresource(KubeControlPlane kube, TestNamespace ns) {
        ns.create(Workloads.statefulSet("db", 2));
        ns.metrics().podUsage("app=db", "100m", "64Mi");
        ns.create(hpa(ns.name(), "db", "apps/v1", "StatefulSet", "db", 1, 4, cpuUtilization(50)));
        try (InProcessController controller = controllerAsServiceAccount(kube, ns)) {
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(readyPods(ns, "db")).extracting(p -> p.getMetadata().getName())
                    .containsExactlyInAnyOrder("db-0", "db-1", "db-2", "db-3"));
        }
        assertThat(scaleWrites(kube, ns, "statefulsets", "db")).isEqualTo(1);
    }

    @Test
    void aReplicaSetIsScaledThroughItsScaleSubresource(KubeControlPlane kube, TestNamespace ns) {
        ns.create(Workloads.replicaSet("rs", 2));
        ns.metrics().podUsage("app=rs", "100m", "64Mi");
        ns.create(hpa(ns.name(), "rs", "apps/v1", "ReplicaSet", "rs", 1, 4, cpuUtilization(50)));
        try (InProcessController controller = controllerAsServiceAccount(kube, ns)) {
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(readyPods(ns, "rs")).hasSize(4));
        }
        assertThat(scaleWrites(kube, ns, "replicasets", "rs")).isEqualTo(1);
    }

    @Test
    void aCustomResourceIsScaledThroughItsScaleSubresourceWithACustomSelectorPath(KubeControlPlane kube, TestNamespace ns) {
        KubernetesClient admin = ns.admin();
        Workloads.installWidgetCrd(admin);
        var widgets = admin.genericKubernetesResources(Workloads.WIDGETS).inNamespace(ns.name());
        GenericKubernetesResource w = widgets.resource(Workloads.widget("queue-worker", 2)).create();
        // nothing controls a Widget: the test writes what its controller would (the scale's selector is .status.selector)
        w.getAdditionalProperties().put("status", Map.of("replicas", 2, "selector", "app=queue-worker"));
        widgets.resource(w).updateStatus();
        ns.metrics().externalMetric("queue_messages_ready", "40");
        ns.create(hpa(ns.name(), "queue-worker", "example.com/v1", "Widget", "queue-worker", 1, 10,
                new MetricSpecBuilder().withType("External").withNewExternal().withNewMetric().withName("queue_messages_ready").endMetric()
                        .withNewTarget().withType("AverageValue").withNewAverageValue("10").endTarget().endExternal().build()));
        try (InProcessController controller = controllerAsServiceAccount(kube, ns)) {
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(((Map<?, ?>) widgets.withName("queue-worker").get()
                    .getAdditionalProperties().get("spec")).get("replicas")).as("40 messages, 10 per replica").isEqualTo(4));
        }
        assertThat(ns.count(ns.audit().user(ChartReleases.shipped(kube).user()).verb("get").resource("widgets").subresource("scale").code(200)))
                .as("the scale (and its selector) read through widgets/scale").isPositive();
        assertThat(scaleWrites(kube, ns, "widgets", "queue-worker")).isEqualTo(1);
    }
}
