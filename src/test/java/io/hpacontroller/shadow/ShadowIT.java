package io.hpacontroller.shadow;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.controller.ScaleTargetsIT;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shadow mode beside upstream's HPA controller (kube-controller-manager v1.26.1
 * {@code --controllers=...,horizontalpodautoscaling}, on a control plane of its own): a whole scale-up
 * (limited by a Pods policy, whose period counts the scale-ups the built-in controller made) and
 * scale-down. The controller runs as the chart's ServiceAccount with {@code shadow: true} and leader
 * election; it writes nothing but its Lease, and after each of the built-in controller's syncs its shadow
 * gauge equals the built-in's desiredReplicas.
 */
@RealKube
class ShadowIT {

    private static KubeControlPlane upstream;

    @BeforeAll
    static void startUpstream() {
        upstream = KubeControlPlane.start(KubeControlPlane.Options.workloads("shadow").withUpstreamHpaController(
                "--horizontal-pod-autoscaler-sync-period=1s", "--horizontal-pod-autoscaler-downscale-stabilization=0s"));
    }

    @AfterAll
    static void stopUpstream() {
        if (upstream != null) {
            upstream.close();
        }
    }

    private static HorizontalPodAutoscaler web() {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(6)
                .addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget().withType("Utilization")
                .withAverageUtilization(50).endTarget().endResource().endMetric()
                .withNewBehavior()
                .withNewScaleUp().withStabilizationWindowSeconds(0).addNewPolicy().withType("Pods").withValue(2).withPeriodSeconds(5).endPolicy().endScaleUp()
                .withNewScaleDown().withStabilizationWindowSeconds(0).addNewPolicy().withType("Percent").withValue(100).withPeriodSeconds(15).endPolicy().endScaleDown()
                .endBehavior().endSpec().build();
    }

    @Test
    void theShadowWritesNothingAndWantsWhatTheBuiltinControllerWantsAfterEachOfItsSyncs() {
        ChartRelease release = ChartReleases.install(upstream, "hpa-shadow", "hpa-shadow", "shadow: true\n");
        ChartReleases.installCrds(upstream); // the chart's crds/: the mirror API is on, with no mirror HPA
        TestNamespace ns = upstream.newNamespace("shadow");
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi"); // 100% of the request, twice the target
        await().atMost(Waits.STATE).until(() -> ScaleTargetsIT.readyPods(ns, "web").size() == 2);

        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults().withDownscaleStabilization(Duration.ZERO),
                Duration.ofSeconds(1), 2, List.of(ns.name()), Duration.ofSeconds(5), Set.of(HpaApi.MIRROR), true);
        LeaseSettings election = Waits.steadyLease(release.namespace(), "hpa-controller", "shadow-it");
        List<Shadow.Comparison> comparisons = new CopyOnWriteArrayList<>();
        Instant start = Instant.now();
        try (InProcessController controller = InProcessController.start(release.client(), options, election)) {
            controller.runtime().controller().shadow().addListener(new Shadow.Listener() {
                @Override
                public void onComparison(Shadow.Comparison c) {
                    comparisons.add(c);
                }

                @Override
                public void onGone(String namespace, String name) {
                }
            });
            await().atMost(Waits.STATE).until(() -> controller.runtime().isLeader() && controller.runtime().controller().isWorking());
            ns.create(web());
            // 2 -> 4 -> 6: two steps of 2 pods, the second one policy period after the first
            await().atMost(Waits.STATE).until(() -> replicas(ns) == 6 && desired(ns) == 6);
            // settled: the built-in controller's next syncs write nothing, so no status it writes from here on was
            // decided from the metrics before the change below (a comparison would straddle it)
            await().atMost(Waits.STATE).until(() -> settledAtMax(ns));
            // and the shadow has compared that last status: its sync reads the metrics when it runs, which on a
            // loaded machine can be after the change below
            HorizontalPodAutoscalerStatus settled = hpa(ns).getStatus();
            await().atMost(Waits.STATE).until(() -> comparisons.stream().anyMatch(c -> settled.equals(c.builtinStatus())));
            ns.metrics().podUsage("app=web", "1m", "64Mi"); // 1% of the request: the minimum
            await().atMost(Waits.STATE).until(() -> replicas(ns) == 1 && desired(ns) == 1);
            await().atMost(Waits.STATE).until(() -> comparisons.stream().anyMatch(c -> c.builtinDesired() == 1));

            assertThat(comparisons).as("one comparison per status the built-in controller wrote").hasSizeGreaterThanOrEqualTo(4)
                    .allSatisfy(c -> assertThat(c.shadowDesired()).as("from %d replicas: built-in %s; shadow %s", c.currentReplicas(),
                            c.builtinReason(), c.reason()).isEqualTo(c.builtinDesired()));
            assertThat(comparisons).extracting(Shadow.Comparison::builtinDesired).contains(4, 6, 1);
            assertThat(comparisons).as("the shadow saw the HPA created: its history is complete").noneMatch(Shadow.Comparison::warmingUp);
            assertThat(comparisons).as("the Pods policy held 4 for a period, counting the built-in's scale-up")
                    .anySatisfy(c -> {
                        assertThat(c.currentReplicas()).isEqualTo(4);
                        assertThat(c.shadowDesired()).isEqualTo(4);
                        assertThat(c.reason()).contains("ScalingLimited=True ScaleUpLimit");
                    });
            assertThat(gauge(controller, "hpa_controller_shadow_desired_replicas", ns)).isEqualTo(1.0);
            assertThat(gauge(controller, "hpa_controller_builtin_desired_replicas", ns)).isEqualTo(1.0);
        }
        List<AuditEvent> writes = upstream.audit().events(AuditEvent.Filter.all().user(release.user()).since(start).writes());
        assertThat(writes).as("the shadow writes nothing but its Lease").isNotEmpty()
                .allSatisfy(e -> assertThat(e.resource()).isEqualTo("leases"));
        assertThat(upstream.audit().events(AuditEvent.Filter.all().user(release.user()).since(start).code(403))).isEmpty();
    }

    private static HorizontalPodAutoscaler hpa(TestNamespace ns) {
        return ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get();
    }

    private static boolean settledAtMax(TestNamespace ns) {
        HorizontalPodAutoscaler h = hpa(ns);
        return h.getStatus() != null && Integer.valueOf(6).equals(h.getStatus().getCurrentReplicas()) && h.getStatus().getConditions() != null
                && h.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("AbleToScale") && c.getReason().equals("ReadyForNewScale"))
                && h.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("ScalingLimited") && c.getReason().equals("TooManyReplicas"));
    }

    private static int replicas(TestNamespace ns) {
        return ns.admin().apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas();
    }

    private static int desired(TestNamespace ns) {
        HorizontalPodAutoscaler h = hpa(ns);
        return h.getStatus() == null || h.getStatus().getDesiredReplicas() == null ? -1 : h.getStatus().getDesiredReplicas();
    }

    private static double gauge(InProcessController controller, String name, TestNamespace ns) {
        for (MetricSnapshot m : controller.runtime().registry().scrape()) {
            if (m.getMetadata().getPrometheusName().equals(name)) {
                return ((GaugeSnapshot) m).getDataPoints().stream()
                        .filter(d -> ns.name().equals(d.getLabels().get("namespace")) && "web".equals(d.getLabels().get("name")))
                        .findFirst().orElseThrow().getValue();
            }
        }
        throw new AssertionError("no metric " + name);
    }
}
