package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricTarget;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HPA specs the API server's validation would have refused (older API versions, objects written around
 * validation), and clusters that cannot serve a sync: each ends in a condition and an event that say
 * why, never in a scale and never in an exception. The world is otherwise one that would scale up
 * (3 pods at 100 % of a 50 % cpu target), so "no scale" is meaningful.
 */
class BadSpecTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long T = NOW.toEpochMilli();

    /** One bad input and what the sync must say about it. */
    record Case(Consumer<HorizontalPodAutoscaler> spec, Consumer<FakeCluster> world, ErrorKind error,
                String conditionType, String reason, String message, List<String> events) {
    }

    private static Named<Case> bad(String name, Consumer<HorizontalPodAutoscaler> spec, String conditionType, String reason,
                                   String message, String... events) {
        return Named.of(name, new Case(spec, w -> { }, ErrorKind.SPEC, conditionType, reason, message, List.of(events)));
    }

    private static Named<Case> badWorld(String name, Consumer<FakeCluster> world, String conditionType, String reason,
                                        String message, String... events) {
        return Named.of(name, new Case(h -> { }, world, ErrorKind.INTERNAL, conditionType, reason, message, List.of(events)));
    }

    private static Consumer<HorizontalPodAutoscaler> metrics(MetricSpec... metrics) {
        return h -> h.getSpec().setMetrics(new ArrayList<>(Arrays.asList(metrics)));
    }

    private static Consumer<HorizontalPodAutoscaler> behavior(HPAScalingRules scaleUp) {
        return h -> h.getSpec().setBehavior(new HorizontalPodAutoscalerBehavior(null, scaleUp));
    }

    private static HPAScalingRules policy(String type, Integer value, Integer period) {
        return new HPAScalingRules(List.of(new HPAScalingPolicy(period, type, value)), null, null, null);
    }

    private static MetricSpec withTarget(MetricSpec m, MetricTarget target) {
        switch (m.getType()) {
            case "Resource" -> m.getResource().setTarget(target);
            case "Pods" -> m.getPods().setTarget(target);
            case "Object" -> m.getObject().setTarget(target);
            default -> m.getExternal().setTarget(target);
        }
        return m;
    }

    private static final String ACTIVE = "ScalingActive";
    private static final String ABLE = "AbleToScale";

    static Stream<Named<Case>> cases() {
        return Stream.of(
                // ---- the scale target ----
                bad("no scaleTargetRef", h -> h.getSpec().setScaleTargetRef(null), ABLE, "FailedGetScale",
                        "the HPA has no scaleTargetRef with a kind and a name", "FailedGetScale"),
                bad("scaleTargetRef without a name", h -> h.getSpec().getScaleTargetRef().setName(null), ABLE, "FailedGetScale",
                        "the HPA has no scaleTargetRef with a kind and a name", "FailedGetScale"),
                bad("malformed apiVersion", h -> h.getSpec().getScaleTargetRef().setApiVersion("apps/v1/beta"), ABLE, "FailedGetScale",
                        "unexpected GroupVersion string: apps/v1/beta", "FailedGetScale"),
                badWorld("unknown target or a kind without /scale", w -> w.scaleReadError = new ApiException.NotFound(
                        "the server could not find the requested resource"), ABLE, "FailedGetScale",
                        "the server could not find the requested resource", "FailedGetScale"),
                // ---- replica bounds ----
                bad("no maxReplicas", h -> h.getSpec().setMaxReplicas(null), ACTIVE, "InvalidReplicaBounds",
                        "spec.maxReplicas is required", "InvalidReplicaBounds"),
                bad("maxReplicas 0", h -> h.getSpec().setMaxReplicas(0), ACTIVE, "InvalidReplicaBounds",
                        "spec.maxReplicas must be at least 1, got 0", "InvalidReplicaBounds"),
                bad("negative maxReplicas", h -> h.getSpec().setMaxReplicas(-3), ACTIVE, "InvalidReplicaBounds",
                        "spec.maxReplicas must be at least 1, got -3", "InvalidReplicaBounds"),
                bad("negative minReplicas", h -> h.getSpec().setMinReplicas(-1), ACTIVE, "InvalidReplicaBounds",
                        "spec.minReplicas must not be negative, got -1", "InvalidReplicaBounds"),
                bad("minReplicas above maxReplicas", h -> h.getSpec().setMinReplicas(11), ACTIVE, "InvalidReplicaBounds",
                        "spec.minReplicas (11) must not be greater than spec.maxReplicas (10)", "InvalidReplicaBounds"),
                // ---- metrics ----
                bad("unknown metric type", metrics(new MetricSpecBuilder().withType("CheddarCheese").build()), ACTIVE,
                        "InvalidMetricSourceType", "unknown metric source type \"CheddarCheese\"", "InvalidMetricSourceType", "FailedComputeMetricsReplicas"),
                bad("metric without a type", metrics(new MetricSpec()), ACTIVE,
                        "InvalidMetricSourceType", "unknown metric source type \"\"", "InvalidMetricSourceType", "FailedComputeMetricsReplicas"),
                bad("a null metric", metrics((MetricSpec) null), ACTIVE,
                        "InvalidMetricSourceType", "unknown metric source type \"\"", "InvalidMetricSourceType", "FailedComputeMetricsReplicas"),
                bad("Resource metric without its source", metrics(new MetricSpecBuilder().withType("Resource").build()), ACTIVE,
                        "FailedGetResourceMetric", "the resource name is not set", "FailedGetResourceMetric", "FailedComputeMetricsReplicas"),
                bad("Resource metric without a target", metrics(withTarget(Specs.cpuUtilization(50), null)), ACTIVE,
                        "FailedGetResourceMetric", "neither an average utilization target nor an average value (usage) target was set",
                        "FailedGetResourceMetric", "FailedComputeMetricsReplicas"),
                bad("Pods metric without a target", metrics(withTarget(Specs.podsAverage("qps", "10"), null)), ACTIVE,
                        "FailedGetPodsMetric", "an average value target must be set", "FailedGetPodsMetric", "FailedComputeMetricsReplicas"),
                bad("Object metric without a target", metrics(withTarget(Specs.objectValue("rps", "10"), null)), ACTIVE,
                        "FailedGetObjectMetric", "neither a value target nor an average value target was set", "FailedGetObjectMetric", "FailedComputeMetricsReplicas"),
                bad("External metric without a target", metrics(withTarget(Specs.externalValue("queue", "10"), new MetricTarget())), ACTIVE,
                        "FailedGetExternalMetric", "neither a value target nor an average value target was set", "FailedGetExternalMetric", "FailedComputeMetricsReplicas"),
                bad("utilization target 0", metrics(Specs.cpuUtilization(0)), ACTIVE, "FailedGetResourceMetric",
                        "averageUtilization must be greater than 0, got 0", "FailedGetResourceMetric", "FailedComputeMetricsReplicas"),
                bad("negative utilization target", metrics(Specs.cpuUtilization(-50)), ACTIVE, "FailedGetResourceMetric",
                        "averageUtilization must be greater than 0, got -50", "FailedGetResourceMetric", "FailedComputeMetricsReplicas"),
                bad("zero averageValue", metrics(Specs.resourceAverage("cpu", "0")), ACTIVE, "FailedGetResourceMetric",
                        "averageValue must be positive, got 0", "FailedGetResourceMetric", "FailedComputeMetricsReplicas"),
                bad("negative Pods target", metrics(Specs.podsAverage("qps", "-1")), ACTIVE, "FailedGetPodsMetric",
                        "averageValue must be positive, got -1", "FailedGetPodsMetric", "FailedComputeMetricsReplicas"),
                bad("malformed Pods target", metrics(Specs.podsAverage("qps", "ten")), ACTIVE, "FailedGetPodsMetric",
                        "spec.metrics[0].pods.target.averageValue: malformed quantity \"ten\"", "FailedGetPodsMetric", "FailedComputeMetricsReplicas"),
                // the API server stores 1e10000000 so; computing it took 29 s of CPU before the bound
                bad("absurd Pods target", metrics(Specs.podsAverage("qps", "10e9999999")), ACTIVE, "FailedGetPodsMetric",
                        "invalid metric target: spec.metrics[0].pods.target.averageValue: malformed quantity \"10e9999999\": the exponent of a "
                                + "quantity may have at most 2 digits", "FailedGetPodsMetric", "FailedComputeMetricsReplicas"),
                bad("absurd External value", metrics(Specs.externalValue("queue", "1" + "0".repeat(70))), ACTIVE, "FailedGetExternalMetric",
                        "spec.metrics[0].external.target.value: malformed quantity", "FailedGetExternalMetric", "FailedComputeMetricsReplicas"),
                bad("zero Object value", metrics(Specs.objectValue("rps", "0")), ACTIVE, "FailedGetObjectMetric",
                        "value must be positive, got 0", "FailedGetObjectMetric", "FailedComputeMetricsReplicas"),
                bad("negative External average", metrics(Specs.externalAverage("queue", "-500m")), ACTIVE, "FailedGetExternalMetric",
                        "averageValue must be positive, got -500m", "FailedGetExternalMetric", "FailedComputeMetricsReplicas"),
                bad("metric selector with an unknown operator", metrics(podsWithSelector()), ACTIVE, "FailedGetPodsMetric",
                        "\"Near\" is not a valid label selector operator", "FailedGetPodsMetric", "FailedComputeMetricsReplicas"),
                // ---- behavior ----
                bad("unknown policy type", behavior(policy("Replicas", 4, 60)), ACTIVE, "InvalidBehavior",
                        "invalid behavior: scaleUp.policies: type \"Replicas\" is not one of Pods, Percent", "InvalidBehavior"),
                bad("policy value 0", behavior(policy("Pods", 0, 60)), ACTIVE, "InvalidBehavior",
                        "scaleUp.policies: value must be greater than 0, got 0", "InvalidBehavior"),
                bad("policy without a period", behavior(policy("Percent", 100, null)), ACTIVE, "InvalidBehavior",
                        "scaleUp.policies: periodSeconds must be between 1 and 1800, got null", "InvalidBehavior"),
                bad("policy period over 30 minutes", behavior(policy("Percent", 100, 1801)), ACTIVE, "InvalidBehavior",
                        "periodSeconds must be between 1 and 1800, got 1801", "InvalidBehavior"),
                bad("unknown selectPolicy", behavior(new HPAScalingRules(null, "Maximum", null, null)), ACTIVE, "InvalidBehavior",
                        "scaleUp.selectPolicy \"Maximum\" is not one of Max, Min, Disabled", "InvalidBehavior"),
                bad("negative stabilization window", behavior(new HPAScalingRules(null, null, -1, null)), ACTIVE, "InvalidBehavior",
                        "scaleUp.stabilizationWindowSeconds must be between 0 and 3600, got -1", "InvalidBehavior"),
                bad("stabilization window over an hour", behavior(new HPAScalingRules(null, null, 3601, null)), ACTIVE, "InvalidBehavior",
                        "stabilizationWindowSeconds must be between 0 and 3600, got 3601", "InvalidBehavior"),
                bad("negative tolerance", behavior(new HPAScalingRules(null, null, null, new Quantity("-100m"))), ACTIVE, "InvalidBehavior",
                        "scaleUp.tolerance must not be negative, got -100m", "InvalidBehavior"),
                bad("absurd tolerance", behavior(new HPAScalingRules(null, null, null, new Quantity("1e-9999999"))), ACTIVE, "InvalidBehavior",
                        "scaleUp.tolerance: malformed quantity \"1e-9999999\"", "InvalidBehavior"),
                bad("malformed tolerance", behavior(new HPAScalingRules(null, null, null, new Quantity("lots"))), ACTIVE, "InvalidBehavior",
                        "malformed quantity \"lots\"", "InvalidBehavior"),
                // ---- the target's selector and pods ----
                badWorld("scale without a selector", w -> w.scale = new ScaleTarget(3, 3, null, "1"), ACTIVE, "InvalidSelector",
                        "selector", "SelectorRequired", "FailedComputeMetricsReplicas"),
                badWorld("malformed scale selector", w -> w.scale = new ScaleTarget(3, 3, "app in (web", "1"), ACTIVE, "InvalidSelector",
                        "couldn't convert selector into a corresponding internal selector object", "InvalidSelector", "FailedComputeMetricsReplicas"),
                badWorld("a selector that matches no pods", w -> w.pods = List.of(), ACTIVE, "FailedGetResourceMetric",
                        "no pods returned by selector while calculating replica count", "FailedGetResourceMetric", "FailedComputeMetricsReplicas"),
                badWorld("pods without requests", w -> w.pods = List.of(new PodInfo("pod-0", PodPhase.RUNNING, ReadyStatus.TRUE,
                                T - Pods.AN_HOUR, T - Pods.AN_HOUR, false, new ContainerInfo[]{new ContainerInfo("app", ResourceAmounts.EMPTY)}, null)),
                        ACTIVE, "FailedGetResourceMetric", "missing request for cpu in container app of Pod pod-0",
                        "FailedGetResourceMetric", "FailedComputeMetricsReplicas"));
    }

    private static MetricSpec podsWithSelector() {
        MetricSpec m = Specs.podsAverage("qps", "10");
        m.getPods().getMetric().setSelector(new LabelSelector(List.of(new LabelSelectorRequirement("zone", "Near", List.of("a"))), Map.of()));
        return m;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aBadInputIsAConditionAndAnEventNeverAScale(Case c) {
        FakeCluster cluster = new FakeCluster();
        cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
        cluster.pods = Pods.ready(3, 1000, T);
        cluster.podUsage = Pods.cpuUsage(T, 1000, 1000, 1000);
        cluster.podsMetrics.put("qps", Pods.samples(T, 30_000, 30_000, 30_000));
        cluster.objectMetrics.put("rps", new MetricsSource.ObjectMetricValue(100_000, T));
        cluster.externalMetrics.put("queue", List.of(100_000L));
        c.world().accept(cluster);
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        c.spec().accept(hpa);

        ReconcileOutcome o = cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), Clock.fixed(NOW, ZoneOffset.UTC)).reconcile(hpa);

        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(o.rescaled()).isFalse();
        assertThat(o.error()).isEqualTo(c.error());
        assertThat(o.errorMessage()).isNotBlank();
        HorizontalPodAutoscalerCondition condition = o.status().getConditions().stream()
                .filter(x -> c.conditionType().equals(x.getType())).findFirst().orElseThrow();
        assertThat(condition.getStatus()).isEqualTo("False");
        assertThat(condition.getReason()).isEqualTo(c.reason());
        assertThat(condition.getMessage()).contains(c.message());
        assertThat(cluster.eventReasons()).containsExactlyElementsOf(c.events());
        assertThat(cluster.events).allSatisfy(e -> assertThat(e.type()).isEqualTo(io.hpacontroller.core.port.EventRecorder.Type.Warning));
        assertThat(cluster.events.get(0).message()).contains(c.message());
        assertThat(o.statusWritten()).as("the condition reaches the API").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aBadInputHoldsEvenACountOutsideTheBounds(Case c) {
        // with the count above maxReplicas, a valid HPA would be scaled to maxReplicas without metrics;
        // the spec errors that come before that step must stop it
        if (!List.of("InvalidReplicaBounds", "InvalidBehavior", "FailedGetScale").contains(c.reason())) {
            return;
        }
        FakeCluster cluster = new FakeCluster();
        cluster.scale = new ScaleTarget(40, 40, "app=web", "1");
        c.world().accept(cluster);
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        c.spec().accept(hpa);
        cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), Clock.fixed(NOW, ZoneOffset.UTC)).reconcile(hpa);
        assertThat(cluster.scaleWrites).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void theLargestMaxReplicasDoesNotOverflow() {
        FakeCluster cluster = new FakeCluster();
        cluster.pods = Pods.ready(3, 1, T);
        // three pods each reporting the largest value: the sum saturates, the proposal clamps to MaxInt32
        cluster.podsMetrics.put("qps", Pods.samples(T, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE));
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
        for (int current : new int[]{3, 1_500_000_000, Integer.MAX_VALUE - 1}) {
            cluster.scale = new ScaleTarget(current, current, "app=web", "1");
            cluster.scaleWrites.clear();
            cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), clock).reconcile(Specs.hpa(1, Integer.MAX_VALUE, Specs.podsAverage("qps", "1")));
            // legacy: twice the count, at least 4; default behavior: 4 pods or 100 %, whichever is more
            int legacyLimit = (int) Math.min(Integer.MAX_VALUE, Math.max(2L * current, 4));
            int behaviorLimit = (int) Math.min(Integer.MAX_VALUE, Math.max(2L * current, current + 4L));
            assertThat(cluster.scaleWrites).as("legacy, from %d", current).containsExactly(legacyLimit);

            cluster.scale = new ScaleTarget(current, current, "app=web", "1");
            cluster.scaleWrites.clear();
            HorizontalPodAutoscaler withBehavior = Specs.hpa(1, Integer.MAX_VALUE, Specs.podsAverage("qps", "1"));
            withBehavior.getSpec().setBehavior(new HorizontalPodAutoscalerBehavior());
            cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), clock).reconcile(withBehavior);
            assertThat(cluster.scaleWrites).as("behavior, from %d", current).containsExactly(behaviorLimit);
        }
    }
}
