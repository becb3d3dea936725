package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.ops.ControllerRuntime;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.testing.RecordedExit;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.hpacontroller.testing.Keys.key;
import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A full replacement whose built-in HPA controller was left on (issue 27, item 3): upstream's controller
 * (kube-controller-manager v1.26.1, on a control plane of its own) and ours on one autoscaling/v2 HPA. Their tolerances
 * differ (upstream's 0.1, ours 0.2, at a load 16 % above the target), so they disagree at every sync and write the status
 * over each other's: ours reports it once, a Warning event ConflictingController naming kube-controller-manager, the
 * condition ConflictingController=True set once, {@code hpa_controller_conflicting_writers} 1, however many syncs follow.
 * Alone, on the shared control plane, through a scale-up and the status changes that follow, it reports nothing.
 */
@RealKube
class ConflictingControllerIT {

    private static final Duration SETTLED = Duration.ofSeconds(120);
    private static KubeControlPlane upstream;

    @BeforeAll
    static void startUpstream() {
        upstream = KubeControlPlane.start(KubeControlPlane.Options.workloads("fight").withUpstreamHpaController(
                "--horizontal-pod-autoscaler-sync-period=1s"));
    }

    @AfterAll
    static void stopUpstream() {
        if (upstream != null) {
            upstream.close();
        }
    }

    private static ControllerOptions options(TestNamespace ns, double tolerance) {
        return new ControllerOptions(ControllerConfig.defaults().withTolerance(tolerance).withDownscaleStabilization(Duration.ZERO),
                Duration.ofSeconds(1), 2, List.of(ns.name()), Duration.ofSeconds(5), Set.of(HpaApi.BUILTIN), false);
    }

    private static HorizontalPodAutoscaler read(TestNamespace ns) {
        return ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get();
    }

    private static Optional<HorizontalPodAutoscalerCondition> conflicting(TestNamespace ns) {
        HorizontalPodAutoscaler h = read(ns);
        return h == null || h.getStatus() == null || h.getStatus().getConditions() == null ? Optional.empty()
                : h.getStatus().getConditions().stream().filter(c -> c.getType().equals(Reconciler.CONFLICTING_CONTROLLER)).findFirst();
    }

    private static List<Event> conflictEvents(TestNamespace ns) {
        return ns.admin().v1().events().inNamespace(ns.name()).list().getItems().stream()
                .filter(e -> Reconciler.CONFLICTING_CONTROLLER.equals(e.getReason())).toList();
    }

    private static String metrics(ControllerRuntime runtime) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtime.metricsPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void theBuiltinControllerWritingTheSameHpaIsReportedOnceNotAtEverySync() throws Exception {
        TestNamespace ns = upstream.newNamespace("fight");
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "58m", "64Mi"); // 116 % of the 50 % target: upstream scales, ours holds
        await().atMost(SETTLED).until(() -> ScaleTargetsIT.readyPods(ns, "web").size() == 2);
        ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        KubernetesClient client = ChartReleases.shipped(upstream).client();
        ControllerRuntime ours = new ControllerRuntime(client, new ControllerRuntime.Settings(options(ns, 0.2), null,
                new InetSocketAddress("127.0.0.1", 0), MetricsServing.PLAIN, null, Duration.ofSeconds(5)), new RecordedExit()); // no lease to lose
        String key = ns.name() + "/web";
        try {
            ours.start();
            await().atMost(SETTLED).until(() -> !conflictEvents(ns).isEmpty() && conflicting(ns).isPresent());
            HorizontalPodAutoscalerCondition first = conflicting(ns).orElseThrow();
            long syncs = upstream.audit().count(ns.audit().resource("horizontalpodautoscalers").subresource("status").writes());
            // the fight goes on: both keep writing the status over each other's
            await().atMost(SETTLED).until(() -> upstream.audit().count(ns.audit().resource("horizontalpodautoscalers").subresource("status")
                    .writes()) >= syncs + 20);

            assertThat(first.getStatus()).isEqualTo("True");
            assertThat(first.getReason()).isEqualTo(Reconciler.STATUS_WRITTEN_BY_ANOTHER);
            assertThat(first.getMessage()).startsWith("kube-controller-manager wrote this HPA's status at ")
                    .contains("two controllers reconcile this HPA").contains("turn off the built-in HPA controller");
            assertThat(conflicting(ns)).as("set once: kept by both controllers' writes").hasValueSatisfying(c -> {
                assertThat(c.getLastTransitionTime()).isEqualTo(first.getLastTransitionTime());
                assertThat(c.getMessage()).isEqualTo(first.getMessage());
            });
            ours.controller().flushEvents(Duration.ofSeconds(10));
            assertThat(conflictEvents(ns)).as("one event, never bumped").singleElement().satisfies(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getCount()).isEqualTo(1);
                assertThat(e.getMessage()).isEqualTo(first.getMessage());
            });
            assertThat(ours.controller().conflictingWriters()).containsExactly(key(key));
            assertThat(metrics(ours)).contains("hpa_controller_conflicting_writers{api_group=\"autoscaling\",hpa_name=\"web\",namespace=\""
                    + ns.name() + "\"} 1.0");
        } finally {
            ours.close();
            client.close();
        }
    }

    @Test
    void aloneItReportsNoConflict(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        try (InProcessController controller = InProcessController.start(ChartReleases.shipped(kube).client(), options(ns, 0.1), null)) {
            await().atMost(SETTLED).until(() -> read(ns).getStatus() != null && Integer.valueOf(4).equals(read(ns).getStatus().getCurrentReplicas()));
            ns.metrics().podUsage("app=web", "30m", "64Mi"); // the status changes again: metrics, then scale-downs to 3 and 2
            await().atMost(SETTLED).until(() -> Integer.valueOf(2).equals(read(ns).getStatus().getCurrentReplicas()));
            long from = controller.syncsOf(ns.name() + "/web");
            await().atMost(SETTLED).until(() -> controller.syncsOf(ns.name() + "/web") >= from + 10);

            assertThat(conflicting(ns)).isEmpty();
            assertThat(conflictEvents(ns)).isEmpty();
            assertThat(controller.runtime().controller().conflictingWriters()).isEmpty();
        }
    }
}
