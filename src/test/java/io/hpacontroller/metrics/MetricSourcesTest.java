package io.hpacontroller.metrics;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.controller.LiveTestBase;
import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Pods, Object and External metrics through the custom and external metrics APIs; a custom resource target. */
class MetricSourcesTest extends LiveTestBase {

    @Test
    void podsMetricAverageValue() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "api", 2)).create();
        cluster.metrics().setPodsMetric(NS, "requests_per_second", "30");
        create(hpa(NS, "api", "apps/v1", "Deployment", "api", 1, 10, new MetricSpecBuilder().withType("Pods")
                .withNewPods().withNewMetric().withName("requests_per_second").endMetric()
                .withNewTarget().withType("AverageValue").withAverageValue(new Quantity("10")).endTarget().endPods().build()));
        startController(LiveFixtures.fastOptions());

        // every pod keeps reporting 30 against 10 per pod: 4 (legacy cap), 8, then the max of 10
        await().atMost(Waits.STATE).until(() -> replicas("api") == 10);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            HorizontalPodAutoscaler h = readHpa("api");
            assertThat(h.getStatus().getCurrentMetrics().get(0).getPods().getCurrent().getAverageValue()).isEqualTo(new Quantity("30"));
            assertThat(condition(h, "ScalingActive")).isEqualTo("True/ValidMetricFound");
            assertThat(condition(h, "ScalingLimited")).isEqualTo("True/TooManyReplicas");
        });
        assertThat(events("SuccessfulRescale")).extracting(e -> e.getMessage())
                .contains("New size: 4; reason: pods metric requests_per_second above target");
    }

    @Test
    void objectMetricValueAndExternalMetricAverageValue() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "front", 2)).create();
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "worker", 2)).create();
        // the ingress-side object reports 600 rps against a target of 100: ratio 6 on 2 ready pods = 12 -> capped at 10
        cluster.metrics().setObjectMetric(NS, "deployments.apps", "front", "rps", "600");
        // the queue holds 25 messages, 5 per worker wanted: 5 workers
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "10", "15");
        create(hpa(NS, "front", "apps/v1", "Deployment", "front", 1, 10, new MetricSpecBuilder().withType("Object")
                .withNewObject().withNewDescribedObject().withApiVersion("apps/v1").withKind("Deployment").withName("front").endDescribedObject()
                .withNewMetric().withName("rps").endMetric()
                .withNewTarget().withType("Value").withValue(new Quantity("100")).endTarget().endObject().build()));
        create(hpa(NS, "worker", "apps/v1", "Deployment", "worker", 1, 20, new MetricSpecBuilder().withType("External")
                .withNewExternal().withNewMetric().withName("queue_messages_ready")
                .withNewSelector().withMatchLabels(Map.of("queue", "jobs")).endSelector().endMetric()
                .withNewTarget().withType("AverageValue").withAverageValue(new Quantity("5")).endTarget().endExternal().build()));
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).until(() -> replicas("front") == 10 && replicas("worker") == 5);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(readHpa("front").getStatus().getCurrentMetrics().get(0).getObject().getCurrent().getValue()).isEqualTo(new Quantity("600"));
            assertThat(readHpa("worker").getStatus().getCurrentMetrics().get(0).getExternal().getCurrent().getAverageValue()).isEqualTo(new Quantity("5"));
        });
        // the external metric was asked for with its label selector
        assertThat(cluster.requests()).anyMatch(r -> r.path().startsWith("/apis/external.metrics.k8s.io/v1beta1/namespaces/demo/queue_messages_ready?labelSelector=queue%3Djobs"));
    }

    @Test
    void failingMetricIsReportedOnItsMetricAndNothingScales() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "api", 3)).create();
        create(hpa(NS, "api", "apps/v1", "Deployment", "api", 1, 10, new MetricSpecBuilder().withType("External")
                .withNewExternal().withNewMetric().withName("missing_metric").endMetric()
                .withNewTarget().withType("Value").withValue(new Quantity("1")).endTarget().endExternal().build()));
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readHpa("api"), "ScalingActive")).isEqualTo("False/FailedGetExternalMetric");
            assertThat(events("FailedGetExternalMetric")).isNotEmpty();
            assertThat(events("FailedComputeMetricsReplicas")).isNotEmpty();
        });
        assertThat(replicas("api")).isEqualTo(3);
        // repeated failures bump the count of one event instead of flooding
        await().atMost(Waits.STATE).until(() -> events("FailedGetExternalMetric").stream().anyMatch(e -> e.getCount() >= 3));
        assertThat(events("FailedGetExternalMetric")).hasSize(1);
    }

    @Test
    void customResourceWithAScaleSubresource() throws Exception {
        client.genericKubernetesResources(MockCluster.WIDGETS).inNamespace(NS).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("example.com/v1").withKind("Widget").withNewMetadata().withName("w1").withNamespace(NS).endMetadata()
                .addToAdditionalProperties("spec", Map.of("replicas", 2)).build()).create();
        cluster.workloads().setCpuPerPod(NS, "w1", "150m");
        create(hpa(NS, "w1", "example.com/v1", "Widget", "w1", 1, 5, LiveFixtures.cpuUtilization(50)));
        startController(LiveFixtures.fastOptions());

        // 150% of request against 50%: 2 * 3 = 6, legacy cap 4, then max 5
        await().atMost(Waits.STATE).untilAsserted(() -> {
            Object spec = client.genericKubernetesResources(MockCluster.WIDGETS).inNamespace(NS).withName("w1").get()
                    .getAdditionalProperties().get("spec");
            assertThat(((Map<?, ?>) spec).get("replicas")).isEqualTo(5);
        });
        assertThat(cluster.requests()).anyMatch(r -> r.method().equals("PUT") && r.path().equals("/apis/example.com/v1/namespaces/demo/widgets/w1/scale"));
    }

    @Test
    void aKindWithoutScaleSubresourceGetsAClearCondition() throws Exception {
        create(hpa(NS, "g", "example.com/v1", "Gadget", "g1", 1, 5, LiveFixtures.cpuUtilization(50)));
        create(hpa(NS, "nope", "example.com/v1", "Nonexistent", "x", 1, 5, LiveFixtures.cpuUtilization(50)));
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).untilAsserted(() -> {
            HorizontalPodAutoscaler g = readHpa("g");
            assertThat(condition(g, "AbleToScale")).isEqualTo("False/FailedGetScale");
            assertThat(g.getStatus().getConditions().get(0).getMessage()).contains("has no scale subresource");
            assertThat(readHpa("nope").getStatus().getConditions().get(0).getMessage()).contains("no matches for kind \"Nonexistent\"");
            assertThat(events("FailedGetScale")).hasSizeGreaterThanOrEqualTo(2);
        });
    }
}
