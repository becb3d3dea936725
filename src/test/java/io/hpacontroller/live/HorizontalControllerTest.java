package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;


import static io.hpacontroller.live.LiveFixtures.cpuUtilization;
import static io.hpacontroller.live.LiveFixtures.deployment;
import static io.hpacontroller.live.LiveFixtures.hpa;
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
}
