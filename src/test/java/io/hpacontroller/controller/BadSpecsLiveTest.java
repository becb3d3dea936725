package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * HPAs the API server would refuse, written straight into the (unvalidating) mock cluster next to a
 * good one: each gets its condition and event, none scales, no worker dies, and the good one scales.
 */
class BadSpecsLiveTest extends LiveTestBase {

    private HorizontalPodAutoscaler bad(String name, String target) {
        return hpa(NS, name, "apps/v1", "Deployment", target, 1, 10, cpuUtilization(50));
    }

    @Test
    void badHpasGetConditionsAndEventsWhileTheOthersKeepScaling() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        for (String name : Map.of("bounds", 1, "cheese", 1, "zero-target", 1, "policy", 1, "ten", 1).keySet()) {
            client.apps().deployments().inNamespace(NS).resource(deployment(NS, "t-" + name, 3)).create();
            cluster.workloads().setCpuPerPod(NS, "t-" + name, "100m");
        }

        HorizontalPodAutoscaler bounds = bad("bounds", "t-bounds");
        bounds.getSpec().setMinReplicas(5);
        bounds.getSpec().setMaxReplicas(2);
        create(bounds);
        HorizontalPodAutoscaler cheese = bad("cheese", "t-cheese");
        cheese.getSpec().setMetrics(java.util.List.of(new MetricSpecBuilder().withType("CheddarCheese").build()));
        create(cheese);
        create(hpa(NS, "zero-target", "apps/v1", "Deployment", "t-zero-target", 1, 10, cpuUtilization(0)));
        HorizontalPodAutoscaler policy = bad("policy", "t-policy");
        policy.getSpec().setBehavior(new io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder()
                .withNewScaleUp().withSelectPolicy("Sometimes").endScaleUp().build());
        create(policy);
        create(hpa(NS, "ten", "apps/v1", "Deployment", "t-ten", 1, 10, new MetricSpecBuilder().withType("External")
                .withNewExternal().withNewMetric().withName("queue").endMetric()
                .withNewTarget().withType("Value").withValue(new Quantity("ten")).endTarget().endExternal().build()));
        create(hpa(NS, "daemons", "apps/v1", "DaemonSet", "node-agent", 1, 10, cpuUtilization(50)));

        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readHpa("bounds"), "ScalingActive")).isEqualTo("False/InvalidReplicaBounds");
            assertThat(condition(readHpa("cheese"), "ScalingActive")).isEqualTo("False/InvalidMetricSourceType");
            assertThat(condition(readHpa("zero-target"), "ScalingActive")).isEqualTo("False/FailedGetResourceMetric");
            assertThat(condition(readHpa("policy"), "ScalingActive")).isEqualTo("False/InvalidBehavior");
            assertThat(condition(readHpa("ten"), "ScalingActive")).isEqualTo("False/FailedGetExternalMetric");
            assertThat(condition(readHpa("daemons"), "AbleToScale")).isEqualTo("False/FailedGetScale");
            assertThat(events("InvalidReplicaBounds")).isNotEmpty();
            assertThat(events("InvalidMetricSourceType")).isNotEmpty();
            assertThat(events("InvalidBehavior")).isNotEmpty();
            assertThat(events("FailedGetScale")).isNotEmpty();
        });
        await().atMost(Waits.STATE).until(() -> replicas("web") == 10);

        assertThat(readHpa("daemons").getStatus().getConditions().get(0).getMessage()).contains("has no scale subresource");
        assertThat(readHpa("zero-target").getStatus().getConditions()).anySatisfy(c -> assertThat(c.getMessage()).contains("averageUtilization"));
        for (String name : new String[] {"bounds", "cheese", "zero-target", "policy", "ten"}) {
            assertThat(replicas("t-" + name)).as(name).isEqualTo(3);
        }
        assertThat(controller.isWorking()).isTrue();
    }
}
