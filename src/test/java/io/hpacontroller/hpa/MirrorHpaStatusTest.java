package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatusBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.fakes.Specs;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a mirror HPA's status write sends for the core's entries that the mirror's schema would refuse (issue 27). */
class MirrorHpaStatusTest {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @Test
    void aFailedMetricsEntryIsSentAsAutoscalingV2StoresItAndKeepsItsPlace() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50), Specs.externalValue("queue", "10"));
        MetricStatus cpu = new MetricStatusBuilder().withType("Resource").withNewResource().withName("cpu").withNewCurrent()
                .withAverageUtilization(90).endCurrent().endResource().build();
        MirrorHpaStatus status = MirrorHpaStatus.of(hpa, new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(3).withDesiredReplicas(6)
                .withCurrentMetrics(cpu, new MetricStatus()).build(), null);

        assertThat(JSON.asJson(status.getCurrentMetrics())).isEqualTo(
                "[{\"resource\":{\"current\":{\"averageUtilization\":90},\"name\":\"cpu\"},\"type\":\"Resource\"},{\"type\":\"\"}]");
        assertThat(status.getTargets()).isEqualTo("cpu: 90%/50%, <unknown>/10");
    }

    @Test
    void anObjectAverageValueEntryGetsTheSpecsDescribedObject() {
        CrossVersionObjectReference ingress = new CrossVersionObjectReference("networking.k8s.io/v1", "Ingress", "web");
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, new MetricSpecBuilder().withType("Object").withNewObject().withNewMetric().withName("hits")
                .endMetric().withDescribedObject(ingress).withNewTarget().withType("AverageValue").withAverageValue(new Quantity("10")).endTarget()
                .endObject().build());
        MetricStatus upstreams = new MetricStatusBuilder().withType("Object").withNewObject().withNewMetric().withName("hits").endMetric()
                .withNewCurrent().withAverageValue(new Quantity("20")).endCurrent().endObject().build();

        MirrorHpaStatus status = MirrorHpaStatus.of(hpa, new HorizontalPodAutoscalerStatusBuilder().withDesiredReplicas(6)
                .withCurrentMetrics(upstreams).build(), null);

        assertThat(status.getCurrentMetrics()).singleElement().satisfies(m -> {
            assertThat(m.getObject().getDescribedObject()).isEqualTo(ingress);
            assertThat(m.getObject().getCurrent()).isEqualTo(upstreams.getObject().getCurrent());
        });
        assertThat(upstreams.getObject().getDescribedObject()).as("the core's entry is left as it is").isNull();
    }
}
