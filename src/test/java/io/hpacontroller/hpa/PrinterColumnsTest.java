package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpecBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatusBuilder;
import io.hpacontroller.core.HpaKey;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;

/** The REFERENCE and TARGETS columns as kube-apiserver prints them for autoscaling/v2; keys of both APIs. */
class PrinterColumnsTest {

    private static HorizontalPodAutoscalerSpec spec(io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec... metrics) {
        return hpa("shop", "web", "apps/v1", "Deployment", "web", 1, 4, metrics).getSpec();
    }

    @Test
    void referenceIsKindSlashName() {
        assertThat(PrinterColumns.reference(spec(cpuUtilization(50)))).isEqualTo("Deployment/web");
    }

    @Test
    void targetsShowCurrentOverTargetPerMetricUnknownBeforeTheFirstSync() {
        assertThat(PrinterColumns.targets(spec(cpuUtilization(50)), null)).isEqualTo("cpu: <unknown>/50%");
        MetricStatus cpu = new MetricStatusBuilder().withType("Resource").withNewResource().withName("cpu")
                .withNewCurrent().withAverageUtilization(80).withAverageValue(new Quantity("80m")).endCurrent().endResource().build();
        MetricStatus queue = new MetricStatusBuilder().withType("External").withNewExternal().withNewMetric().withName("queue").endMetric()
                .withNewCurrent().withAverageValue(new Quantity("12")).endCurrent().endExternal().build();

        assertThat(PrinterColumns.targets(spec(cpuUtilization(50), externalAverage("queue", "10")), List.of(cpu, queue)))
                .isEqualTo("cpu: 80%/50%, 12/10 (avg)");
        assertThat(PrinterColumns.targets(spec(cpuUtilization(50), externalAverage("queue", "10"), cpuUtilization(60)), List.of(cpu, queue)))
                .isEqualTo("cpu: 80%/50%, 12/10 (avg) + 1 more...");
        assertThat(PrinterColumns.targets(new HorizontalPodAutoscalerSpecBuilder().withMaxReplicas(3).build(), null)).isEqualTo("<none>");
    }

    @Test
    void aMirrorStatusWrittenBeforeAnyDecisionHasTheDesiredReplicasItsSchemaRequires() {
        var hpa = hpa("shop", "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50));
        MirrorHpaStatus status = MirrorHpaStatus.of(hpa, new io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus(), null);

        assertThat(status.getDesiredReplicas()).isZero();
        assertThat(status.getReference()).isEqualTo("Deployment/web");
        assertThat(status.getTargets()).isEqualTo("cpu: <unknown>/50%");
    }

    @Test
    void theKeysOfAnHpaAndItsMirrorTwinDiffer() {
        var builtin = hpa("shop", "web", "apps/v1", "Deployment", "web", 1, 4);
        var mirror = new MirrorHpa();
        mirror.setMetadata(builtin.getMetadata());
        mirror.setSpec(builtin.getSpec());

        assertThat(HpaKey.of(builtin).toString()).isEqualTo("shop/web").isEqualTo(HpaApi.BUILTIN.key("shop", "web"));
        assertThat(HpaKey.of(mirror.toCore()).toString()).isEqualTo("autoscaling.hpa-controller.io/shop/web").isEqualTo(HpaApi.MIRROR.key("shop", "web"));
        assertThat(HpaApi.ofKey("autoscaling.hpa-controller.io/shop/web")).isEqualTo(HpaApi.MIRROR);
        assertThat(HpaApi.ofKey("shop/web")).isEqualTo(HpaApi.BUILTIN);
        assertThat(HpaKey.namespacedName("autoscaling.hpa-controller.io/shop/web")).isEqualTo("shop/web");
        assertThat(HpaApi.of(mirror.toCore())).isEqualTo(HpaApi.MIRROR);
    }

    @Test
    void aKeyIsReadBackOnlyInTheFormOfItsApi() {
        assertThat(HpaApi.parseKey("shop/web")).isEqualTo(HpaApi.BUILTIN.key("shop", "web"));
        assertThat(HpaApi.parseKey("autoscaling.hpa-controller.io/shop/web")).isEqualTo(HpaApi.MIRROR.key("shop", "web"));
        for (String notAKey : List.of("web", "shop/", "/web", "shop//web", "autoscaling/shop/web", "example.com/shop/web",
                "/shop/web", "autoscaling.hpa-controller.io/shop/web/x", "a/b/c/d", "")) {
            assertThat(HpaApi.parseKey(notAKey)).as(notAKey).isNull();
        }
    }
}
