package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.hpacontroller.core.reconcile.ControllerConfig;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Objects and options the live-controller tests share. */
final class LiveFixtures {

    private LiveFixtures() {
    }

    static Deployment deployment(String ns, String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .withNewSpec().withReplicas(replicas)
                .withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx")
                .withNewResources().withRequests(Map.of("cpu", new Quantity("100m"))).endResources()
                .endContainer().endSpec().endTemplate()
                .endSpec().build();
    }

    static MetricSpec cpuUtilization(int percent) {
        return new MetricSpecBuilder().withType("Resource").withNewResource().withName("cpu")
                .withNewTarget().withType("Utilization").withAverageUtilization(percent).endTarget().endResource().build();
    }

    static MetricSpec externalAverage(String metric, String averageValue) {
        return new MetricSpecBuilder().withType("External").withNewExternal().withNewMetric().withName(metric).endMetric()
                .withNewTarget().withType("AverageValue").withAverageValue(new Quantity(averageValue)).endTarget().endExternal().build();
    }

    static HorizontalPodAutoscaler hpa(String ns, String name, String apiVersion, String kind, String target, int min, int max, MetricSpec... metrics) {
        return new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName(name).withNamespace(ns).withGeneration(1L).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion(apiVersion).withKind(kind).withName(target).endScaleTargetRef()
                .withMinReplicas(min).withMaxReplicas(max).withMetrics(List.of(metrics)).endSpec()
                .build();
    }

    /** Fast syncs and no downscale stabilization, so a test sees several decisions in a second or two. */
    static ControllerOptions fastOptions() {
        ControllerConfig decisions = ControllerConfig.defaults().withDownscaleStabilization(Duration.ZERO);
        return new ControllerOptions(decisions, Duration.ofMillis(250), 2, List.of(), Duration.ofSeconds(5));
    }
}
