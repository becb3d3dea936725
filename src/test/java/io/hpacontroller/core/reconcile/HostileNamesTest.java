package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Names the API server's validation refuses because they are no path segment ({@code IsValidPathSegmentName}: {@code .},
 * {@code ..}, a {@code /}, a {@code %}) in a scaleTargetRef, an Object metric's describedObject or a metric's name: an HPA
 * written around validation (an old stored object, a CRD without its rules) is refused before the request its name would
 * change is made, with a condition and a Warning event naming the field. The world would otherwise scale up (3 pods at
 * twice their target), so "no scale" means something.
 */
class HostileNamesTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long T = NOW.toEpochMilli();

    /** One hostile name: where it goes, what refuses it, and which read must not happen. */
    record Case(Consumer<HorizontalPodAutoscaler> spec, String conditionType, String reason, String message, boolean scaleRead) {
    }

    private static Named<Case> target(String name, Consumer<HorizontalPodAutoscaler> spec, String message) {
        return Named.of(name, new Case(spec, "AbleToScale", "FailedGetScale", message, false));
    }

    private static Named<Case> metric(String name, MetricSpec metric, String reason, String message) {
        return Named.of(name, new Case(h -> h.getSpec().setMetrics(new ArrayList<>(List.of(metric))), "ScalingActive", reason, message, true));
    }

    static Stream<Named<Case>> cases() {
        MetricSpec describedByTraversal = Specs.objectValue("rps", "10");
        describedByTraversal.getObject().getDescribedObject().setName("../../victim/ingresses/web");
        MetricSpec describedByDots = Specs.objectValue("rps", "10");
        describedByDots.getObject().getDescribedObject().setKind("..");
        MetricSpec describedInBadGroup = Specs.objectValue("rps", "10");
        describedInBadGroup.getObject().getDescribedObject().setApiVersion("../v1");
        return Stream.of(
                target("a target name that climbs out of the namespace", h -> h.getSpec().getScaleTargetRef().setName("../../victim/deployments/web"),
                        "spec.scaleTargetRef.name: Invalid value: \"../../victim/deployments/web\": may not contain '/'"),
                target("a target name with an encoded slash", h -> h.getSpec().getScaleTargetRef().setName("a%2Fb"),
                        "spec.scaleTargetRef.name: Invalid value: \"a%2Fb\": may not contain '%'"),
                target("a target named ..", h -> h.getSpec().getScaleTargetRef().setName(".."),
                        "spec.scaleTargetRef.name: Invalid value: \"..\": may not be '..'"),
                target("a target kind with a slash", h -> h.getSpec().getScaleTargetRef().setKind("Deployment/../.."),
                        "spec.scaleTargetRef.kind: Invalid value: \"Deployment/../..\": may not contain '/'"),
                target("a target apiVersion whose group is ..", h -> h.getSpec().getScaleTargetRef().setApiVersion("../v1"),
                        "spec.scaleTargetRef.apiVersion: Invalid value: \"../v1\": a group or a version may not be '..'"),
                metric("a Pods metric name with a slash", Specs.podsAverage("../../../victim/pods/*/qps", "10"), "FailedGetPodsMetric",
                        "invalid pods metric source: spec.metrics[0].pods.metric.name: Invalid value: \"../../../victim/pods/*/qps\": may not contain '/'"),
                metric("a Pods metric name with a percent", Specs.podsAverage("qps%0A", "10"), "FailedGetPodsMetric",
                        "spec.metrics[0].pods.metric.name: Invalid value: \"qps%0A\": may not contain '%'"),
                metric("an External metric named .", Specs.externalValue(".", "10"), "FailedGetExternalMetric",
                        "invalid external metric source: spec.metrics[0].external.metric.name: Invalid value: \".\": may not be '.'"),
                metric("an Object metric name with a slash", Specs.objectValue("a/b", "10"), "FailedGetObjectMetric",
                        "invalid object metric source: spec.metrics[0].object.metric.name: Invalid value: \"a/b\": may not contain '/'"),
                metric("a describedObject name that climbs out of the namespace", describedByTraversal, "FailedGetObjectMetric",
                        "spec.metrics[0].object.describedObject.name: Invalid value: \"../../victim/ingresses/web\": may not contain '/'"),
                metric("a describedObject kind ..", describedByDots, "FailedGetObjectMetric",
                        "spec.metrics[0].object.describedObject.kind: Invalid value: \"..\": may not be '..'"),
                metric("a describedObject apiVersion whose group is ..", describedInBadGroup, "FailedGetObjectMetric",
                        "spec.metrics[0].object.describedObject.apiVersion: Invalid value: \"../v1\": a group or a version may not be '..'"));
    }

    private static FakeCluster world() {
        FakeCluster cluster = new FakeCluster();
        cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
        cluster.pods = Pods.ready(3, 1000, T);
        cluster.podUsage = Pods.cpuUsage(T, 1000, 1000, 1000);
        return cluster;
    }

    private static ReconcileOutcome sync(FakeCluster cluster, HorizontalPodAutoscaler hpa) {
        return cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), Clock.fixed(NOW, ZoneOffset.UTC)).reconcile(hpa);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aNameThatIsNoPathSegmentIsRefusedBeforeItsRequest(Case c) {
        FakeCluster cluster = world();
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        c.spec().accept(hpa);

        ReconcileOutcome o = sync(cluster, hpa);

        assertThat(cluster.scaleReads).as("the scale is read only through a valid scaleTargetRef").isEqualTo(c.scaleRead() ? 1 : 0);
        assertThat(cluster.metricReads).as("no metrics request with the name").isZero();
        assertThat(cluster.scaleWrites).isEmpty();
        assertThat(o.error()).isEqualTo(ErrorKind.SPEC);
        HorizontalPodAutoscalerCondition condition = o.status().getConditions().stream()
                .filter(x -> c.conditionType().equals(x.getType())).findFirst().orElseThrow();
        assertThat(condition.getStatus()).isEqualTo("False");
        assertThat(condition.getReason()).isEqualTo(c.reason());
        assertThat(condition.getMessage()).contains(c.message());
        assertThat(cluster.events).isNotEmpty().allSatisfy(e -> assertThat(e.type()).isEqualTo(EventRecorder.Type.Warning));
        assertThat(cluster.eventReasons().get(0)).isEqualTo(c.reason());
        assertThat(cluster.events.get(0).message()).contains(c.message());
        assertThat(o.statusWritten()).as("the condition reaches the API").isTrue();
    }

    @Test
    void namesAPathSegmentCanCarryAreNotRefused() {
        // upstream's validation takes these; the adapters encode them (PathSegment), so they are only names
        FakeCluster cluster = world();
        cluster.podsMetrics.put("qps?x=1\n#", Pods.samples(T, 30_000, 30_000, 30_000));
        cluster.objectMetrics.put("rps", new MetricsSource.ObjectMetricValue(100_000, T));
        MetricSpec object = Specs.objectValue("rps", "10");
        object.getObject().getDescribedObject().setName("web?x=");
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.podsAverage("qps?x=1\n#", "10"), object);
        hpa.getSpec().getScaleTargetRef().setName("web?x=");

        ReconcileOutcome o = sync(cluster, hpa);

        assertThat(o.error()).isEqualTo(ErrorKind.NONE);
        assertThat(cluster.scaleReads).isEqualTo(1);
        assertThat(cluster.metricReads).isEqualTo(2);
        assertThat(cluster.scaleWrites).as("twice the 3 pods: the scale-up limit").containsExactly(6);
    }
}
