package io.hpacontroller.core.fakes;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;

import java.util.List;

/** Small builders for the autoscaling/v2 objects the tests feed the core. */
public final class Specs {

    private Specs() {
    }

    /** An HPA "web" in namespace "default" on Deployment "web". */
    public static HorizontalPodAutoscaler hpa(Integer minReplicas, Integer maxReplicas, MetricSpec... metrics) {
        return new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName("web").withNamespace("default").withGeneration(1L).endMetadata()
                .withNewSpec()
                .withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(minReplicas).withMaxReplicas(maxReplicas).withMetrics(List.of(metrics))
                .endSpec()
                .build();
    }

    public static MetricSpec cpuUtilization(int percent) {
        return new MetricSpecBuilder().withType("Resource")
                .withNewResource().withName("cpu").withNewTarget().withType("Utilization").withAverageUtilization(percent).endTarget().endResource()
                .build();
    }

    public static MetricSpec resourceAverage(String resource, String averageValue) {
        return new MetricSpecBuilder().withType("Resource")
                .withNewResource().withName(resource).withNewTarget().withType("AverageValue").withAverageValue(new Quantity(averageValue)).endTarget().endResource()
                .build();
    }

    public static MetricSpec podsAverage(String metric, String averageValue) {
        return new MetricSpecBuilder().withType("Pods")
                .withNewPods().withNewMetric().withName(metric).endMetric()
                .withNewTarget().withType("AverageValue").withAverageValue(new Quantity(averageValue)).endTarget().endPods()
                .build();
    }

    public static MetricSpec objectValue(String metric, String value) {
        return new MetricSpecBuilder().withType("Object")
                .withNewObject().withNewMetric().withName(metric).endMetric()
                .withNewDescribedObject().withApiVersion("networking.k8s.io/v1").withKind("Ingress").withName("web").endDescribedObject()
                .withNewTarget().withType("Value").withValue(new Quantity(value)).endTarget().endObject()
                .build();
    }

    public static MetricSpec externalValue(String metric, String value) {
        return new MetricSpecBuilder().withType("External")
                .withNewExternal().withNewMetric().withName(metric).endMetric()
                .withNewTarget().withType("Value").withValue(new Quantity(value)).endTarget().endExternal()
                .build();
    }

    public static MetricSpec externalAverage(String metric, String averageValue) {
        return new MetricSpecBuilder().withType("External")
                .withNewExternal().withNewMetric().withName(metric).endMetric()
                .withNewTarget().withType("AverageValue").withAverageValue(new Quantity(averageValue)).endTarget().endExternal()
                .build();
    }
}
