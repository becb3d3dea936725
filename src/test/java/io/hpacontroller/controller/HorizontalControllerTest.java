package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.forecast.PredictAnnotation;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class HorizontalControllerTest extends LiveTestBase {

    @Test
    void scalesADeploymentUpThenDownAsCpuChanges() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m"); // 100% of the 100m request
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS)
                .resource(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50))).create();

        startController(LiveFixtures.fastOptions());

        // 2 pods at twice the target: 4 (the legacy cap also allows 4), then 8, then the max of 10
        await().atMost(Waits.STATE).until(() -> replicas("web") == 10);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            HorizontalPodAutoscaler h = readHpa("web");
            assertThat(h.getStatus().getDesiredReplicas()).isEqualTo(10);
            assertThat(h.getStatus().getCurrentReplicas()).isEqualTo(10);
            assertThat(condition(h, "ScalingActive")).isEqualTo("True/ValidMetricFound");
            assertThat(condition(h, "ScalingLimited")).isEqualTo("True/TooManyReplicas");
            assertThat(h.getStatus().getCurrentMetrics()).hasSize(1);
            assertThat(h.getStatus().getCurrentMetrics().get(0).getResource().getCurrent().getAverageUtilization()).isEqualTo(100);
            assertThat(h.getStatus().getLastScaleTime()).isNotNull();
        });
        await().atMost(Waits.STATE).untilAsserted(() ->
                assertThat(events("SuccessfulRescale")).extracting(Event::getMessage)
                        .anyMatch(m -> m.startsWith("New size: 4; reason: cpu resource utilization (percentage of request) above target"))
                        .anyMatch(m -> m.startsWith("New size: 10;")));

        // load drops to 10% of the request: 10 pods * 0.2 = 2
        cluster.workloads().setCpuPerPod(NS, "web", "10m");
        await().atMost(Waits.STATE).until(() -> replicas("web") == 2);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(events("SuccessfulRescale")).extracting(Event::getMessage)
                    .anyMatch(m -> m.equals("New size: 2; reason: All metrics below target"));
            assertThat(condition(readHpa("web"), "AbleToScale")).startsWith("True/");
        });
        Event rescale = events("SuccessfulRescale").get(0);
        assertThat(rescale.getInvolvedObject().getKind()).isEqualTo("HorizontalPodAutoscaler");
        assertThat(rescale.getSource().getComponent()).isEqualTo("horizontal-pod-autoscaler");
    }

    @Test
    void deletedHpasLeaveNothingBehind() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "40");
        startController(LiveFixtures.fastOptions().withPersistHistory(true));
        Map<String, Integer> nothing = controller.heldPerHpa().keySet().stream().collect(Collectors.toMap(k -> k, k -> 0));

        for (int round = 0; round < 3; round++) {
            // each with its own controls (a period, a mode, predictive scaling): every per-HPA store gets an entry
            int r = round;
            List<String> names = IntStream.range(0, 20).mapToObj(i -> "churn-" + r + "-" + i).toList();
            for (int i = 0; i < names.size(); i++) {
                // most share one target (AmbiguousSelector: nothing computed); the predicting ones have their own
                String target = i % 4 == 3 ? names.get(i) : "web";
                if (!target.equals("web")) {
                    client.apps().deployments().inNamespace(NS).resource(deployment(NS, target, 2)).create();
                }
                HorizontalPodAutoscaler h = hpa(NS, names.get(i), "apps/v1", "Deployment", target, 1, 4,
                        i % 2 == 0 ? cpuUtilization(50) : externalAverage("queue_messages_ready", "10"));
                Map<String, String> annotations = new HashMap<>();
                annotations.put(ControlAnnotations.SYNC_PERIOD, (1 + i % 3) + "s");
                if (i % 4 == 1) {
                    annotations.put(ControlAnnotations.MODE, "Preview");
                }
                if (i % 4 == 3) {
                    annotations.put(PredictAnnotation.NAME, "{model: Linear, horizon: 2m, history: 10m}");
                }
                h.getMetadata().setAnnotations(annotations);
                create(h);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> names.stream().allMatch(n -> syncsOf(n) >= 2));
            assertThat(controller.heldPerHpa()).as("the live HPAs are held").containsAllEntriesOf(Map.of("queue", 20, "histories", 20,
                    "predictions", 5, "selectors", 20, "controls", 20, "periods", 20, "kept", 20));

            names.forEach(n -> client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName(n).delete());
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(controller.heldPerHpa()).isEqualTo(nothing));
            Set<String> gone = syncs.stream().filter(s -> s.outcome() == null).map(s -> s.key().toString()).collect(Collectors.toSet());
            assertThat(gone).as("the listeners heard of every deletion").containsAll(names.stream().map(n -> NS + "/" + n).toList());
        }
    }
}
