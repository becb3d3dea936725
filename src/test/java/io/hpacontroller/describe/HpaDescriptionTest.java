package io.hpacontroller.describe;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HpaDescriptionTest {

    private static final Instant CREATED = Instant.parse("2022-10-10T10:03:20Z");

    private static HorizontalPodAutoscalerBuilder hpa() {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("backend-user").withNamespace("default")
                .withCreationTimestamp(CREATED.toString()).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("backend-user").endScaleTargetRef()
                .withMinReplicas(2).withMaxReplicas(5)
                .addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget().withType("Utilization")
                .withAverageUtilization(70).endTarget().endResource().endMetric().endSpec();
    }

    private static Event rescale(Instant first, Instant last, int count) {
        return new EventBuilder().withType("Normal").withReason("SuccessfulRescale").withMessage("New size: 2; reason: All metrics below target")
                .withNewSource().withComponent("horizontal-pod-autoscaler").endSource().withCount(count)
                .withFirstTimestamp(first.toString()).withLastTimestamp(last.toString()).build();
    }

    /** kubectl 1.25's output for this HPA, as a user pasted it (the Metrics line sets the width of the first block). */
    @Test
    void readsAsKubectlDescribeHpa() {
        HorizontalPodAutoscaler h = hpa().withNewStatus().withCurrentReplicas(2).withDesiredReplicas(2)
                .addNewCurrentMetric().withType("Resource").withNewResource().withName("cpu").withNewCurrent().withAverageUtilization(0)
                .withAverageValue(new Quantity("0")).endCurrent().endResource().endCurrentMetric()
                .addNewCondition().withType("AbleToScale").withStatus("True").withReason("ReadyForNewScale").withMessage("recommended size matches current size").endCondition()
                .addNewCondition().withType("ScalingActive").withStatus("True").withReason("ValidMetricFound")
                .withMessage("the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)").endCondition()
                .addNewCondition().withType("ScalingLimited").withStatus("True").withReason("TooFewReplicas")
                .withMessage("the desired replica count is less than the minimum replica count").endCondition()
                .endStatus().build();
        Instant now = Instant.parse("2022-10-10T11:00:00Z");
        String text = HpaDescription.render(h, List.of(rescale(now.minus(Duration.ofMinutes(41)), now.minus(Duration.ofMinutes(41)), 1)), now, ZoneId.of("+02:00"));
        assertThat(text).isEqualTo("""
                Name:                                                  backend-user
                Namespace:                                             default
                Labels:                                                <none>
                Annotations:                                           <none>
                CreationTimestamp:                                     Mon, 10 Oct 2022 12:03:20 +0200
                Reference:                                             Deployment/backend-user
                Metrics:                                               ( current / target )
                  resource cpu on pods  (as a percentage of request):  0% (0) / 70%
                Min replicas:                                          2
                Max replicas:                                          5
                Deployment pods:                                       2 current / 2 desired
                Conditions:
                  Type            Status  Reason            Message
                  ----            ------  ------            -------
                  AbleToScale     True    ReadyForNewScale  recommended size matches current size
                  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)
                  ScalingLimited  True    TooFewReplicas    the desired replica count is less than the minimum replica count
                Events:
                  Type    Reason             Age   From                       Message
                  ----    ------             ----  ----                       -------
                  Normal  SuccessfulRescale  41m   horizontal-pod-autoscaler  New size: 2; reason: All metrics below target
                """);
    }

    /** Each metric type's line, a behavior (a line without a tab starts a new block), labels, a long annotation, a repeated event. */
    @Test
    void everyMetricTypeBehaviorAndRepeatedEvents() {
        HorizontalPodAutoscaler h = hpa().editMetadata().addToLabels("team", "a").addToLabels("app", "web")
                .addToAnnotations("note", "x".repeat(150)).addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{}").endMetadata()
                .editSpec().withMinReplicas(null)
                .addNewMetric().withType("Pods").withNewPods().withNewMetric().withName("rps").endMetric().withNewTarget().withType("AverageValue")
                .withAverageValue(new Quantity("10")).endTarget().endPods().endMetric()
                .addNewMetric().withType("Object").withNewObject().withNewMetric().withName("hits").endMetric().withNewDescribedObject()
                .withKind("Service").withName("front").endDescribedObject().withNewTarget().withType("Value").withValue(new Quantity("2k"))
                .endTarget().endObject().endMetric()
                .addNewMetric().withType("External").withNewExternal().withNewMetric().withName("queue").endMetric().withNewTarget()
                .withType("AverageValue").withAverageValue(new Quantity("30")).endTarget().endExternal().endMetric()
                .addNewMetric().withType("ContainerResource").withNewContainerResource().withName("memory").withContainer("app").withNewTarget()
                .withType("AverageValue").withAverageValue(new Quantity("100Mi")).endTarget().endContainerResource().endMetric()
                .withNewBehavior().withNewScaleUp().withStabilizationWindowSeconds(0).addNewPolicy().withType("Pods").withValue(4)
                .withPeriodSeconds(15).endPolicy().addNewPolicy().withType("Percent").withValue(100).withPeriodSeconds(15).endPolicy().endScaleUp()
                .withNewScaleDown().withSelectPolicy("Min").endScaleDown().endBehavior().endSpec()
                .withNewStatus().withCurrentReplicas(3).withDesiredReplicas(4)
                .addNewCurrentMetric().withType("Resource").withNewResource().withName("cpu").withNewCurrent().withAverageUtilization(45)
                .withAverageValue(new Quantity("90m")).endCurrent().endResource().endCurrentMetric()
                .addNewCurrentMetric().withType("Pods").withNewPods().withNewMetric().withName("rps").endMetric().withNewCurrent()
                .withAverageValue(new Quantity("12")).endCurrent().endPods().endCurrentMetric()
                .endStatus().build();
        Instant now = Instant.parse("2022-10-10T11:00:00Z");
        String text = HpaDescription.render(h, List.of(rescale(now.minusSeconds(615), now.minusSeconds(75), 3)), now, ZoneId.of("UTC"));
        assertThat(text).contains("\n" + row("Labels:", "app=web") + "\n" + row("", "team=a") + "\n")
                .contains("\n" + row("Annotations:", "note:") + "\n" + row("", "  " + "x".repeat(138) + "...") + "\n")
                .doesNotContain("last-applied")
                .contains("\n" + row("  resource cpu on pods  (as a percentage of request):", "45% (90m) / 70%") + "\n")
                .contains("\n" + row("  \"rps\" on pods:", "12 / 10") + "\n")
                .contains("\n" + row("  \"hits\" on Service/front (target value):", "<unknown> / 2k") + "\n")
                .contains("\n" + row("  \"queue\" (target average value):", "<unknown> / 30") + "\n")
                .contains("\n" + row("  resource memory of container \"app\" on pods:", "<unknown> / 100Mi") + "\n")
                .contains("\n" + row("Min replicas:", "<unset>") + "\n")
                .contains("""
                        Behavior:
                          Scale Up:
                            Stabilization Window: 0 seconds
                            Select Policy: Max
                            Policies:
                              - Type: Pods     Value: 4    Period: 15 seconds
                              - Type: Percent  Value: 100  Period: 15 seconds
                          Scale Down:
                        Deployment pods:  3 current / 4 desired
                        Events:
                        """)
                .endsWith("  Normal  SuccessfulRescale  75s (x3 over 10m)  horizontal-pod-autoscaler  New size: 2; reason: All metrics below target\n");
    }

    /** A line of the first block, whose first column the Metrics line of a CPU utilization sets to 55. */
    private static String row(String cell, String value) {
        return cell + " ".repeat(55 - cell.length()) + value;
    }

    @Test
    void withoutConditionsOrEventsNoneIsPrinted() {
        String text = HpaDescription.render(hpa().build(), List.of(), Instant.now(), ZoneId.of("UTC"));
        assertThat(text).contains("\n  resource cpu on pods  (as a percentage of request):  <unknown> / 70%\n")
                .contains("\n" + row("Deployment pods:", "0 current / 0 desired") + "\n" + row("Events:", "<none>") + "\n")
                .doesNotContain("Conditions");
        assertThat(HpaDescription.render(hpa().build(), null, Instant.now(), ZoneId.of("UTC"))).as("events not listed").doesNotContain("Events");
    }

    @Test
    void agesAsKubectlPrintsThem() {
        assertThat(List.of(HumanAge.of(Duration.ofSeconds(119)), HumanAge.of(Duration.ofSeconds(125)), HumanAge.of(Duration.ofMinutes(10)),
                HumanAge.of(Duration.ofMinutes(190)), HumanAge.of(Duration.ofHours(9)), HumanAge.of(Duration.ofHours(50)),
                HumanAge.of(Duration.ofDays(400)), HumanAge.of(Duration.ofDays(800)), HumanAge.of(Duration.ofMillis(-500))))
                .containsExactly("119s", "2m5s", "10m", "3h10m", "9h", "2d2h", "400d", "2y70d", "0s");
    }
}
