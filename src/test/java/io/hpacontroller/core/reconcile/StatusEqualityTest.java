package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.hpacontroller.core.Quantities;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricIdentifier;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatusBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class StatusEqualityTest {

    private static MetricStatus resource(String name, Integer utilization, String average) {
        return new MetricStatusBuilder().withType("Resource").withNewResource().withName(name)
                .withNewCurrent().withAverageUtilization(utilization).withAverageValue(average == null ? null : new Quantity(average)).endCurrent()
                .endResource().build();
    }

    private static HorizontalPodAutoscalerStatus status(MetricStatus... metrics) {
        return new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(3).withDesiredReplicas(3).withCurrentMetrics(metrics).build();
    }

    @Test
    void quantitiesCompareByValueWhateverTheirText() {
        assertThat(StatusEquality.same(status(resource("cpu", 50, "500m")), status(resource("cpu", 50, "0.5")))).isTrue();
        assertThat(StatusEquality.same(status(resource("cpu", 50, "500m")), status(resource("cpu", 50, "501m")))).isFalse();
        assertThat(StatusEquality.same(status(resource("memory", null, "1Gi")), status(resource("memory", null, "1073741824")))).isTrue();
        assertThat(Quantities.sameValue(null, new Quantity("0"))).isFalse();
        assertThat(Quantities.sameValue(null, null)).isTrue();
    }

    @Test
    void everyFieldOfAMetricEntryCounts() {
        MetricStatus base = resource("cpu", 50, "500m");

        assertThat(StatusEquality.sameMetric(base, resource("cpu", 50, "500m"))).isTrue();
        assertThat(StatusEquality.sameMetric(base, resource("memory", 50, "500m"))).isFalse();
        assertThat(StatusEquality.sameMetric(base, resource("cpu", 51, "500m"))).isFalse();
        assertThat(StatusEquality.sameMetric(base, resource("cpu", null, "500m"))).isFalse();
        assertThat(StatusEquality.sameMetric(base, new MetricStatusBuilder(base).withType("Pods").build())).isFalse();
        assertThat(StatusEquality.sameMetric(base, new MetricStatusBuilder(base).addToAdditionalProperties("x", 1).build())).isFalse();
        assertThat(StatusEquality.same(status(base), status(base, base))).isFalse();
    }

    @Test
    void anEntryWithoutATypeEqualsOneWithTheEmptyType() {
        assertThat(StatusEquality.same(status(new MetricStatus()), status(new MetricStatusBuilder().withType("").build()))).isTrue();
        assertThat(StatusEquality.same(status(new MetricStatus()), status(new MetricStatusBuilder().withType("Resource").build()))).isFalse();
    }

    @Test
    void anObjectEntryWithoutADescribedObjectEqualsOnlyOneWithoutIt() {
        MetricStatus withIt = new MetricStatusBuilder().withType("Object").withNewObject().withNewMetric().withName("hits").endMetric()
                .withDescribedObject(new CrossVersionObjectReference("networking.k8s.io/v1", "Ingress", "web"))
                .withNewCurrent().withAverageValue(new Quantity("20")).endCurrent().endObject().build();
        MetricStatus without = new MetricStatusBuilder(withIt).editObject().withDescribedObject(null).endObject().build();
        MetricStatus stored = new MetricStatusBuilder(withIt).editObject().withDescribedObject(new CrossVersionObjectReference(null, "", "")).endObject().build();
        MetricStatus another = new MetricStatusBuilder(withIt).editObject().withDescribedObject(new CrossVersionObjectReference("v1", "Service", "web"))
                .endObject().build();

        assertThat(StatusEquality.sameMetric(without, stored)).as("autoscaling/v2 stores Go's zero value").isTrue();
        assertThat(StatusEquality.sameMetric(without, withIt)).as("written before v1.33: rewritten to name the object (PR #124555)").isFalse();
        assertThat(StatusEquality.sameMetric(withIt, new MetricStatusBuilder(withIt).build())).isTrue();
        assertThat(StatusEquality.sameMetric(withIt, another)).isFalse();
    }

    /** Random entries of every kind from a small pool of values: the field-by-field comparison says what the model's equals says. */
    @Test
    void agreesWithTheModelsEqualsOnRandomEntries() {
        Random random = new Random(17);
        String[] quantities = {"500m", "0.5", "1", "1000m", "2Gi", "2147483648", "0"};
        int equal = 0;
        for (int i = 0; i < 20_000; i++) {
            MetricStatus a = randomEntry(random, quantities);
            MetricStatus b = random.nextInt(4) == 0 ? new MetricStatusBuilder(a).build() : randomEntry(random, quantities);
            boolean expected = a.equals(b);
            assertThat(StatusEquality.sameMetric(a, b)).as("%s vs %s", a, b).isEqualTo(expected);
            equal += expected ? 1 : 0;
        }
        assertThat(equal).as("the pool makes equal pairs as well as different ones").isBetween(2_000, 18_000);
    }

    private static MetricStatus randomEntry(Random random, String[] quantities) {
        MetricValueStatus current = new MetricValueStatus(random.nextBoolean() ? null : 40 + random.nextInt(2),
                pick(random, quantities), pick(random, quantities));
        MetricIdentifier metric = new MetricIdentifier("m" + random.nextInt(2),
                random.nextBoolean() ? null : new LabelSelectorBuilder().addToMatchLabels("app", "a" + random.nextInt(2)).build());
        MetricStatusBuilder b = new MetricStatusBuilder();
        switch (random.nextInt(5)) {
            case 0 -> b.withType("Resource").withNewResource().withName("cpu").withCurrent(current).endResource();
            case 1 -> b.withType("ContainerResource").withNewContainerResource().withName("cpu").withContainer("c" + random.nextInt(2))
                    .withCurrent(current).endContainerResource();
            case 2 -> b.withType("Pods").withNewPods().withMetric(metric).withCurrent(current).endPods();
            case 3 -> b.withType("Object").withNewObject().withMetric(metric).withDescribedObject(new CrossVersionObjectReference("v1", "Service", "s" + random.nextInt(2))).withCurrent(current).endObject();
            default -> b.withType("External").withNewExternal().withMetric(metric).withCurrent(current).endExternal();
        }
        return b.build();
    }

    private static Quantity pick(Random random, String[] quantities) {
        int i = random.nextInt(quantities.length + 1);
        return i == quantities.length ? null : new Quantity(quantities[i]);
    }

    @Test
    void conditionsAndCountsStillCount() {
        HorizontalPodAutoscalerStatus a = status(resource("cpu", 50, "500m"));
        HorizontalPodAutoscalerStatus b = new HorizontalPodAutoscalerStatusBuilder(a).withDesiredReplicas(4).build();

        assertThat(StatusEquality.same(a, b)).isFalse();
        assertThat(StatusEquality.same(a, new HorizontalPodAutoscalerStatusBuilder(a).withCurrentMetrics(List.of(resource("cpu", 50, "0.5"))).build())).isTrue();
    }
}
