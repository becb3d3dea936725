package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.conformance.CaseStatuses;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.MetricStatuses;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.reconcile.StatusEquality;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.RealKubeExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Order;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every status the decision core writes, written through the controller's own status writer ({@link HpaStatusUpdater})
 * to a mirror HPA and to an autoscaling/v2 HPA on the real API server: the API server takes each one (issue 27: a failed
 * metric's entry was refused by the mirror's schema, and every later status write with it), and the mirror HPA then
 * holds what was written. The statuses are those of every reconcile case (conformance, our own, v1.37), plus the paths
 * no case reaches, made here with the core's fakes: ContainerResource metrics, failed scale reads and writes, unusable
 * and ambiguous selectors, invalid bounds and behaviors, a failed metric beside a working one, the ConflictingController
 * and FailedUpdateHistory conditions.
 */
@RealKube
@Order(RealKubeExtension.ORDER_LONG)
class StatusShapesIT {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    /** A status to write: where it comes from, the HPA it was written for, the status and its decision. */
    private record Shape(String name, HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) {
    }

    @Test
    void everyStatusTheControllerWritesIsTakenByTheMirrorApiAndByAutoscalingV2(KubeControlPlane kube, TestNamespace ns) {
        ChartReleases.installCrds(kube);
        List<Shape> shapes = new ArrayList<>();
        for (CaseStatuses.Written w : CaseStatuses.of(List.of(Path.of("src/test/resources/conformance"),
                Path.of("src/test/resources/conformance-own"), Path.of("src/test/resources/conformance-v137")))) {
            shapes.add(new Shape("case " + w.caseName(), w.hpa(), w.status(), w.decided()));
        }
        shapes.addAll(madeHere());
        assertThat(coverage(shapes)).as("what the shapes cover").contains(
                "ScalingActive=False FailedGetResourceMetric", "ScalingActive=False FailedGetContainerResourceMetric",
                "ScalingActive=False FailedGetPodsMetric", "ScalingActive=False FailedGetObjectMetric", "ScalingActive=False FailedGetExternalMetric",
                "ScalingActive=False AmbiguousSelector", "ScalingActive=False InvalidSelector", "ScalingActive=False InvalidReplicaBounds",
                "ScalingActive=False InvalidBehavior", "ScalingActive=False InvalidAnnotation", "ScalingActive=False Suspended",
                "ScalingActive=False ScalingDisabled", "ScalingActive=True FallbackActive", "AbleToScale=False FailedGetScale",
                "AbleToScale=False FailedUpdateScale", "AbleToScale=False FailedUpdateHistory", "AbleToScale=False Preview",
                "ScaledToZero=True ScaledToZero", "ConflictingController=True StatusWrittenByAnother",
                "metric Resource", "metric ContainerResource", "metric Pods", "metric Object", "metric External", "metric failed",
                "metric failed beside a current one", "no currentMetrics");

        ChartReleases.installCrds(kube);
        KubernetesClient controller = ChartReleases.shipped(kube).client(); // both APIs' status, as the chart grants it
        HpaStatusUpdater statuses = new HpaStatusUpdater(new KubeApi(controller, Duration.ofSeconds(30)), WriteGate.alwaysOpen());
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < shapes.size(); i++) {
            Shape shape = shapes.get(i);
            for (HpaApi api : HpaApi.values()) {
                HorizontalPodAutoscaler created = create(ns, api, "s" + i, shape.hpa());
                try {
                    statuses.write(created, shape.status(), shape.decided());
                } catch (ApiException e) {
                    refused.add(api.apiVersion() + " " + shape.name() + ": " + e.getMessage());
                    continue;
                }
                if (api == HpaApi.MIRROR) {
                    MirrorHpa stored = ns.admin().resources(MirrorHpa.class).inNamespace(ns.name()).withName("s" + i).get();
                    if (!StatusEquality.same(stored.getStatus(), shape.status())) {
                        refused.add(api.apiVersion() + " " + shape.name() + ": stored differently: " + stored.getStatus());
                    }
                }
            }
        }
        assertThat(refused).as("%d statuses written to each API", shapes.size()).isEmpty();
    }

    /** The HPA on the server, with the shape's spec when the server takes it, else a plain one (a case of a bad spec). */
    private static HorizontalPodAutoscaler create(TestNamespace ns, HpaApi api, String name, HorizontalPodAutoscaler shape) {
        try {
            return create(ns, api, name, shape.getSpec());
        } catch (KubernetesClientException e) {
            return create(ns, api, name, Specs.hpa(1, 10, Specs.cpuUtilization(50)).getSpec());
        }
    }

    private static HorizontalPodAutoscaler create(TestNamespace ns, HpaApi api, String name,
                                                  io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec spec) {
        if (api == HpaApi.MIRROR) {
            MirrorHpa m = new MirrorHpa();
            m.getMetadata().setName(name);
            m.getMetadata().setNamespace(ns.name());
            m.setSpec(spec);
            return ns.admin().resources(MirrorHpa.class).inNamespace(ns.name()).resource(m).create().toCore();
        }
        HorizontalPodAutoscaler h = new HorizontalPodAutoscaler();
        h.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name).withNamespace(ns.name()).build());
        h.setSpec(spec);
        return ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).resource(h).create();
    }

    /** Condition types and reasons, and the kinds of currentMetrics entries, that the shapes hold. */
    private static Set<String> coverage(List<Shape> shapes) {
        Set<String> seen = new TreeSet<>();
        for (Shape s : shapes) {
            if (s.status().getConditions() != null) {
                s.status().getConditions().forEach(c -> seen.add(c.getType() + "=" + c.getStatus() + " " + c.getReason()));
            }
            List<MetricStatus> metrics = s.status().getCurrentMetrics();
            if (metrics == null || metrics.isEmpty()) {
                seen.add("no currentMetrics");
                continue;
            }
            boolean failed = false;
            boolean current = false;
            for (MetricStatus m : metrics) {
                if (m.getType() == null || m.getType().isEmpty()) {
                    failed = true;
                    seen.add("metric failed");
                } else if (MetricStatuses.current(m) != null) {
                    current = true;
                    seen.add("metric " + m.getType());
                }
            }
            if (failed && current) {
                seen.add("metric failed beside a current one");
            }
        }
        return seen;
    }

    /** The paths no reconcile case reaches, each one sync of the core with its fakes. */
    private static List<Shape> madeHere() {
        List<Shape> out = new ArrayList<>();
        MetricSpec containerCpu = new MetricSpecBuilder().withType("ContainerResource").withNewContainerResource().withName("cpu")
                .withContainer("app").withNewTarget().withType("Utilization").withAverageUtilization(50).endTarget().endContainerResource().build();
        out.add(shape("ContainerResource, scaling up", Specs.hpa(1, 10, containerCpu), c -> c.podUsage = Pods.cpuUsage(millis(), 900, 900, 900)));
        out.add(shape("ContainerResource failing", Specs.hpa(1, 10, containerCpu), c -> c.failingMetrics.add("cpu")));
        out.add(shape("every source type failing", Specs.hpa(1, 10, Specs.cpuUtilization(50), containerCpu, Specs.podsAverage("qps", "10"),
                Specs.objectValue("hits", "10"), Specs.externalValue("queue", "10")), c -> c.failingMetrics.addAll(List.of("cpu", "qps", "hits", "queue"))));
        out.add(shape("a failed metric beside one that scales up", Specs.hpa(1, 10, Specs.cpuUtilization(50), Specs.externalValue("queue", "10")),
                c -> {
                    c.podUsage = Pods.cpuUsage(millis(), 900, 900, 900);
                    c.failingMetrics.add("queue");
                }));
        out.add(shape("the scale cannot be read", Specs.hpa(1, 10, Specs.cpuUtilization(50)),
                c -> c.scaleReadError = new ApiException("deployments.apps \"web\" not found")));
        out.add(shape("the scale cannot be written", Specs.hpa(1, 10, Specs.cpuUtilization(50)), c -> {
            c.podUsage = Pods.cpuUsage(millis(), 900, 900, 900);
            c.scaleWriteError = new ApiException("deployments.apps \"web\" is forbidden");
        }));
        out.add(shape("no selector", Specs.hpa(1, 10, Specs.cpuUtilization(50)), c -> c.scale = new ScaleTarget(3, 3, "", "1")));
        out.add(shape("a selector that does not parse", Specs.hpa(1, 10, Specs.cpuUtilization(50)), c -> c.scale = new ScaleTarget(3, 3, "app in (", "1")));
        out.add(shape("min above max", Specs.hpa(5, 2, Specs.cpuUtilization(50)), c -> { }));
        HorizontalPodAutoscaler badBehavior = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        badBehavior.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleUp().addNewPolicy().withType("Pods").withValue(0)
                .withPeriodSeconds(60).endPolicy().endScaleUp().build());
        out.add(shape("an invalid behavior", badBehavior, c -> { }));
        out.add(shape("another writer of the status", Specs.hpa(1, 10, Specs.cpuUtilization(50)),
                c -> c.otherWriter = OtherStatusWriter.seen("kube-controller-manager wrote this HPA's status at 2026-03-01T11:59:58Z, between two "
                        + "syncs of hpa-controller: two controllers reconcile this HPA and undo each other's status and scale; ...")));
        FakeCluster ambiguous = world(c -> { });
        out.add(sync("pods of another HPA", Specs.hpa(1, 10, Specs.cpuUtilization(50)), ambiguous,
                new Reconciler(ControllerConfig.defaults(), Ports.of(ambiguous, sharedWith("default/other")), new HistoryStore(),
                        clock())));
        FakeCluster unkept = world(c -> c.podUsage = Pods.cpuUsage(millis(), 900, 900, 900));
        HistoryWriter refusing = (hpa, kept, retention, now) -> {
            throw new ApiException("horizontalpodautoscalerhistories.autoscaling.hpa-controller.io \"web\" is forbidden");
        };
        out.add(sync("a history that cannot be kept", Specs.hpa(1, 10, Specs.cpuUtilization(50)), unkept,
                new Reconciler(ControllerConfig.defaults(), Ports.of(unkept, SelectorOwnership.NONE).withHistory(refusing),
                        new HistoryStore(), clock())));
        return out;
    }

    private static long millis() {
        return NOW.toEpochMilli();
    }

    private static Clock clock() {
        return Clock.fixed(NOW, ZoneOffset.UTC);
    }

    /** Three ready pods at 50 % of their CPU request, changed by {@code world}. */
    private static FakeCluster world(Consumer<FakeCluster> world) {
        FakeCluster c = new FakeCluster();
        c.pods = Pods.ready(3, 1000, millis());
        c.podUsage = Pods.cpuUsage(millis(), 500, 500, 500);
        world.accept(c);
        return c;
    }

    private static Shape shape(String name, HorizontalPodAutoscaler hpa, Consumer<FakeCluster> world) {
        FakeCluster c = world(world);
        return sync(name, hpa, c, c.reconciler(ControllerConfig.defaults(), new HistoryStore(), clock()));
    }

    private static Shape sync(String name, HorizontalPodAutoscaler hpa, FakeCluster c, Reconciler reconciler) {
        reconciler.reconcile(hpa);
        assertThat(c.statusWrites).as(name).hasSize(1);
        return new Shape(name, hpa, c.lastStatus(), c.statusWriteDecisions.get(0));
    }

    /** Selector ownership in which every pod is also another HPA's. */
    private static SelectorOwnership sharedWith(String other) {
        return new SelectorOwnership() {
            @Override
            public Controllers controllers(HpaKey hpaKey, String namespace, io.hpacontroller.core.labels.Selector selector,
                                           List<io.hpacontroller.core.model.PodInfo> pods) {
                return new Controllers(2, new ArrayList<>(new TreeSet<>(List.of(hpaKey.toString(), other))));
            }

            @Override
            public void forget(HpaKey hpaKey) {
            }
        };
    }
}
