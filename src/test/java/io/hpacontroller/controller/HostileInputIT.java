package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.forecast.PredictAnnotation;
import io.hpacontroller.testing.Waits;
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

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 29 (items 1, 6 and 9), as a namespace user and an adapter would try them against a real API server: each
 * hostile input is a condition and an event on its own HPA, never a stall, a crash or a stale status, and an
 * unrelated HPA of the same namespace goes on scaling.
 */
@RealKube
class HostileInputIT {

    private static MetricSpec podsAverage(String metric, String averageValue) {
        return new MetricSpecBuilder().withType("Pods").withNewPods().withNewMetric().withName(metric).endMetric()
                .withNewTarget().withType("AverageValue").withAverageValue(new Quantity(averageValue)).endTarget().endPods().build();
    }

    private static HorizontalPodAutoscaler on(TestNamespace ns, String name, MetricSpec metric, Map<String, String> annotations) {
        HorizontalPodAutoscaler h = hpa(ns.name(), name, "apps/v1", "Deployment", name, 1, 10, metric);
        h.getMetadata().setAnnotations(new HashMap<>(annotations));
        return h;
    }

    private static HorizontalPodAutoscaler read(TestNamespace ns, String name) {
        return ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName(name).get();
    }

    private static String scalingActive(TestNamespace ns, String name) {
        HorizontalPodAutoscaler h = read(ns, name);
        return h.getStatus() == null ? null : h.getStatus().getConditions().stream().filter(c -> c.getType().equals("ScalingActive"))
                .map(c -> c.getStatus() + "/" + c.getReason() + ": " + c.getMessage()).findFirst().orElse(null);
    }

    private static List<String> events(TestNamespace ns, String name) {
        return ns.admin().v1().events().inNamespace(ns.name()).withField("involvedObject.name", name).list().getItems().stream()
                .map(Event::getReason).toList();
    }

    private static List<String> eventMessages(TestNamespace ns, String name, String reason) {
        return ns.admin().v1().events().inNamespace(ns.name()).withField("involvedObject.name", name).withField("reason", reason).list()
                .getItems().stream().map(Event::getMessage).toList();
    }

    private static int replicas(TestNamespace ns, String name) {
        return ns.admin().apps().deployments().inNamespace(ns.name()).withName(name).get().getSpec().getReplicas();
    }

    @Test
    void hostileInputsFailTheirOwnHpaWhileAnotherScales(KubeControlPlane kube, TestNamespace ns) {
        // the bystander: 100m of a 100m request against 50 %: 4 replicas
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        // 1: a target of 1e10000000 (stored as 10e9999999), and a pod whose CPU request is absurd (1e1000, stored as 10e999: the API server
        // itself takes seconds over each pod of 1e10000000, which a loaded machine turns into timeouts)
        ns.create(Workloads.deployment("absurd", 1));
        ns.metrics().podsMetric("qps", "10");
        ns.create(on(ns, "absurd", podsAverage("qps", "1e10000000"), Map.of()));
        Deployment greedy = Workloads.deployment("greedy", 1);
        greedy.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().setRequests(Map.of("cpu", new Quantity("1e1000")));
        ns.create(greedy);
        ns.metrics().podUsage("app=greedy", "100m", "64Mi");
        ns.create(on(ns, "greedy", cpuUtilization(50), Map.of()));
        // 6: an adapter that answers HTTP 200 with text that is not JSON, under a fallback control
        ns.create(Workloads.deployment("shop", 1));
        ns.metrics().answerRaw(FakeMetricsServer.Api.CUSTOM, "{not json");
        ns.create(on(ns, "shop", podsAverage("orders", "10"), Map.of(ControlAnnotations.FALLBACK_REPLICAS, "3", ControlAnnotations.FALLBACK_AFTER, "2s")));
        // 9: about 145 KB of nested lists in the predict annotation
        ns.create(Workloads.deployment("deep", 1));
        ns.create(on(ns, "deep", cpuUtilization(50), Map.of(PredictAnnotation.NAME, "[".repeat(72_500) + "]".repeat(72_500))));

        assertThat(read(ns, "absurd").getSpec().getMetrics().get(0).getPods().getTarget().getAverageValue().toString())
                .as("what the API server stored").isEqualTo("10e9999999");
        try (InProcessController controller = ScaleTargetsIT.controllerAsServiceAccount(kube, ns)) {
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(replicas(ns, "web")).isEqualTo(4);
                assertThat(scalingActive(ns, "absurd")).isEqualTo("False/FailedGetPodsMetric: the HPA was unable to compute the replica count: "
                        + "invalid metric target: spec.metrics[0].pods.target.averageValue: malformed quantity \"10e9999999\": "
                        + "the exponent of a quantity may have at most 2 digits (1e99 at most)");
                assertThat(eventMessages(ns, "absurd", "FailedGetPodsMetric")).anySatisfy(m -> assertThat(m).contains("spec.metrics[0].pods.target.averageValue"));
                assertThat(scalingActive(ns, "greedy")).startsWith("False/FailedGetResourceMetric: ").contains("missing request for cpu in container app of Pod greedy-");
                assertThat(events(ns, "greedy")).contains("FailedGetResourceMetric");
                assertThat(eventMessages(ns, "shop", "FailedGetPodsMetric")).anySatisfy(m -> assertThat(m)
                        .startsWith("unable to get metric orders: unable to fetch metrics from custom metrics API: the answer is not valid JSON: "));
                assertThat(scalingActive(ns, "shop")).startsWith("True/FallbackActive: ");
                assertThat(events(ns, "shop")).contains("FallbackActive");
                assertThat(replicas(ns, "shop")).as("the fallback's replicas").isEqualTo(3);
                assertThat(scalingActive(ns, "deep")).isEqualTo("False/InvalidAnnotation: the HPA does not scale until its controls are fixed: "
                        + PredictAnnotation.NAME + ": longer than 65536 characters (145000)");
                assertThat(events(ns, "deep")).contains("InvalidAnnotation");
            });
            assertThat(controller.syncsOf(ns.name() + "/absurd")).isPositive();
        }
        assertThat(replicas(ns, "absurd")).isEqualTo(1);
        assertThat(replicas(ns, "greedy")).isEqualTo(1);
        assertThat(replicas(ns, "deep")).isEqualTo(1);
    }
}
