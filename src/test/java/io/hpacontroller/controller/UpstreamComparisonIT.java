package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The kubectl experience against upstream's: the same scenario runs with upstream's HPA controller
 * (kube-controller-manager v1.26.1 {@code --controllers=...,horizontalpodautoscaling}, on a control plane
 * of its own since two HPA controllers on one server fight) and with ours (as the chart's ServiceAccount
 * on the shared control plane); then what each left on its HPAs is compared field by field (conditions,
 * events, currentMetrics, replicas) and as {@code kubectl get hpa} and {@code kubectl describe hpa} print
 * it. The differences we keep (README, "Tests against a real API server") are masked: the v1.37
 * ScaledToZero condition, a failed metric's entry in currentMetrics (v1.27+), and how a metric's
 * selector is printed in messages.
 */
@RealKube
class UpstreamComparisonIT {

    private static KubeControlPlane upstream;

    @BeforeAll
    static void startUpstream() {
        upstream = KubeControlPlane.start(KubeControlPlane.Options.workloads("upstream").withUpstreamHpaController(
                "--horizontal-pod-autoscaler-sync-period=1s", "--horizontal-pod-autoscaler-downscale-stabilization=0s"));
    }

    @AfterAll
    static void stopUpstream() {
        if (upstream != null) {
            upstream.close();
        }
    }

    /** An HPA that scales its Deployment to its maximum on CPU. */
    private static void scalingToItsMaximum(TestNamespace ns) {
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        podsRunning(ns, "web", 2);
        ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
    }

    /** An HPA whose only metric, an External one, the metrics adapter does not have. */
    private static void failingMetric(TestNamespace ns) {
        ns.create(Workloads.deployment("api", 2));
        podsRunning(ns, "api", 2);
        ns.create(hpa(ns.name(), "api", "apps/v1", "Deployment", "api", 1, 4, new MetricSpecBuilder().withType("External").withNewExternal()
                .withNewMetric().withName("queue_messages_ready").endMetric().withNewTarget().withType("AverageValue").withNewAverageValue("10")
                .endTarget().endExternal().build()));
    }

    /**
     * Upstream syncs at once: a metric read before the pods run would be a difference of timing, not of
     * controllers. So is a sample taken within the fake metrics window (1 s) after a pod's Ready transition
     * (kept to the second): the CPU initialization rule counts such a pod as unready, and with every pod so
     * the metric fails. Both controllers first sync once every pod has been Ready for longer than that.
     */
    private static void podsRunning(TestNamespace ns, String app, int n) {
        await().atMost(Waits.STATE).until(() -> {
            List<io.fabric8.kubernetes.api.model.Pod> ready = ScaleTargetsIT.readyPods(ns, app);
            return ready.size() == n && ready.stream().allMatch(UpstreamComparisonIT::readyForMoreThanTheMetricWindow);
        });
    }

    private static boolean readyForMoreThanTheMetricWindow(io.fabric8.kubernetes.api.model.Pod pod) {
        return pod.getStatus().getConditions().stream().filter(c -> c.getType().equals("Ready"))
                .map(c -> java.time.Instant.parse(c.getLastTransitionTime()))
                .allMatch(since -> since.plusSeconds(3).isBefore(java.time.Instant.now()));
    }

    private static InProcessController ours(KubeControlPlane plane, TestNamespace ns) {
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults().withDownscaleStabilization(Duration.ZERO),
                Duration.ofSeconds(1), 2, List.of(ns.name()), Duration.ofSeconds(5));
        return InProcessController.start(ChartReleases.shipped(plane).client(), options, null);
    }

    @Test
    void anHpaAtItsMaximumReadsAsUpstreamLeavesIt(KubeControlPlane plane) {
        TestNamespace reference = upstream.newNamespace("upstream-web");
        TestNamespace mine = plane.newNamespace("ours-web");
        scalingToItsMaximum(reference);
        scalingToItsMaximum(mine);
        try (InProcessController controller = ours(plane, mine)) {
            await().atMost(Waits.STATE).until(() -> atMaximum(reference) && atMaximum(mine));
            assertSameAsUpstream(reference, mine, "web");
        }
    }

    private static boolean atMaximum(TestNamespace ns) {
        HorizontalPodAutoscaler web = read(ns, "web");
        return web.getStatus() != null && Integer.valueOf(4).equals(web.getStatus().getCurrentReplicas())
                && condition(web, "ScalingLimited") != null && "True".equals(condition(web, "ScalingLimited").getStatus());
    }

    @Test
    void anHpaWhoseMetricFailsReadsAsUpstreamLeavesIt(KubeControlPlane plane) {
        TestNamespace reference = upstream.newNamespace("upstream-api");
        TestNamespace mine = plane.newNamespace("ours-api");
        failingMetric(reference);
        failingMetric(mine);
        try (InProcessController controller = ours(plane, mine)) {
            await().atMost(Waits.STATE).until(() -> failing(reference) && failing(mine));
            // both controllers update their two events at every sync, and kubectl describe orders events by their last
            // second: a look between the two updates of one sync (a wider gap on a loaded machine) sees them swapped
            await().atMost(Waits.STATE).untilAsserted(() -> assertSameAsUpstream(reference, mine, "api"));
        }
    }

    private static boolean failing(TestNamespace ns) {
        HorizontalPodAutoscaler api = read(ns, "api");
        return api.getStatus() != null && condition(api, "ScalingActive") != null && "False".equals(condition(api, "ScalingActive").getStatus())
                && events(ns, "api").stream().anyMatch(e -> e.getReason().equals("FailedGetExternalMetric") && e.getCount() > 1);
    }

    private static void assertSameAsUpstream(TestNamespace reference, TestNamespace mine, String hpa) {
        assertThat(compare(snapshot(reference, hpa), snapshot(mine, hpa))).as("differences from upstream's controller").isEmpty();
        assertThat(getHpa(mine)).as("kubectl get hpa").isEqualTo(getHpa(reference));
        assertThat(describe(mine, hpa)).as("kubectl describe hpa").isEqualTo(describe(reference, hpa));
    }

    // ---- what an HPA shows ----

    private static HorizontalPodAutoscaler read(TestNamespace ns, String name) {
        return ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName(name).get();
    }

    private static HorizontalPodAutoscalerCondition condition(HorizontalPodAutoscaler h, String type) {
        return h.getStatus() == null || h.getStatus().getConditions() == null ? null
                : h.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
    }

    private static List<Event> events(TestNamespace ns, String hpa) {
        return ns.admin().v1().events().inNamespace(ns.name()).list().getItems().stream()
                .filter(e -> hpa.equals(e.getInvolvedObject().getName()) && "HorizontalPodAutoscaler".equals(e.getInvolvedObject().getKind()))
                .toList();
    }

    /** The fields to compare, by path; the namespace's name replaced by NS. ScaledToZero (v1.37, not in v1.26) is left out. */
    private static Map<String, String> snapshot(TestNamespace ns, String name) {
        KubernetesSerialization json = new KubernetesSerialization();
        HorizontalPodAutoscaler h = read(ns, name);
        Map<String, String> fields = new TreeMap<>();
        Consumer<String[]> put = kv -> fields.put(kv[0], kv[1] == null ? "<none>" : selectorsMasked(kv[1].replace(ns.name(), "NS")));
        put.accept(new String[] {name + ".currentReplicas", String.valueOf(h.getStatus().getCurrentReplicas())});
        put.accept(new String[] {name + ".desiredReplicas", String.valueOf(h.getStatus().getDesiredReplicas())});
        put.accept(new String[] {name + ".currentMetrics",
                json.asJson(onlyFailedEntries(h.getStatus().getCurrentMetrics()) ? null : h.getStatus().getCurrentMetrics())});
        for (HorizontalPodAutoscalerCondition c : h.getStatus().getConditions()) {
            if (!c.getType().equals("ScaledToZero")) {
                put.accept(new String[] {name + ".condition." + c.getType(), c.getStatus() + " " + c.getReason() + " " + c.getMessage()});
            }
        }
        for (Event e : events(ns, name)) {
            String key = name + ".event." + e.getReason();
            put.accept(new String[] {key, e.getType() + " " + e.getMessage() + " " + e.getSource().getComponent()
                    + (e.getCount() != null && e.getCount() > 1 ? " (repeated)" : " (once)")});
        }
        return fields;
    }

    /**
     * A kept difference of versions, not of controllers: when every metric failed, upstream since v1.27
     * writes each failed metric's zero-valued entry ({@code {"type":""}}) into currentMetrics, as this
     * controller does (v1.37); v1.26 left currentMetrics as it was.
     */
    private static boolean onlyFailedEntries(List<io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus> metrics) {
        return metrics != null && !metrics.isEmpty() && metrics.stream().allMatch(m -> m.getType() == null || m.getType().isEmpty());
    }

    private static final Pattern METRIC_SELECTOR = Pattern.compile("(external metric NS/[^/]+/)[^:]*:");

    /**
     * A kept difference: upstream prints a metric's selector as a Go value ({@code nil},
     * {@code &LabelSelector{MatchLabels:map[string]string{queue: jobs,},...}}), ours as a label selector
     * ({@code queue=jobs}, nothing when there is none).
     */
    private static String selectorsMasked(String message) {
        return METRIC_SELECTOR.matcher(message).replaceAll("$1SELECTOR:");
    }

    /** "path: upstream=... ours=..." for every field that differs or exists on one side only. */
    static List<String> compare(Map<String, String> upstream, Map<String, String> ours) {
        List<String> out = new ArrayList<>();
        TreeMap<String, String> all = new TreeMap<>(upstream);
        ours.forEach(all::putIfAbsent);
        for (String key : all.keySet()) {
            String u = upstream.get(key);
            String o = ours.get(key);
            if (u == null || !u.equals(o)) {
                out.add(key + ": upstream=" + u + " ours=" + o);
            }
        }
        return out;
    }

    // ---- kubectl ----

    private static final Pattern AGE = Pattern.compile("\\b\\d+(s|m|h|d)(\\d+(s|m))?\\b");

    /** {@code kubectl get hpa}: every column but AGE. */
    private static List<String> getHpa(TestNamespace ns) {
        return ns.plane().kubectl("get", "hpa", "-n", ns.name()).lines()
                .map(l -> l.replaceAll("\\s+\\S+$", "").replaceAll("\\s+", " ")).collect(Collectors.toList());
    }

    /**
     * {@code kubectl describe hpa}, without its creation time, the events' ages and the namespace's name,
     * spaces collapsed; without the ScaledToZero condition, which v1.26 does not have.
     */
    private static List<String> describe(TestNamespace ns, String name) {
        return ns.plane().kubectl("describe", "hpa", name, "-n", ns.name()).lines()
                .filter(l -> !l.startsWith("CreationTimestamp:") && !l.strip().startsWith("ScaledToZero "))
                .map(l -> selectorsMasked(l.replace(ns.name(), "NS")))
                .map(l -> l.matches("\\s*(Normal|Warning)\\s.*") ? AGE.matcher(l.replaceAll("\\(x\\d+ over [^)]*\\)", "(xN)")).replaceFirst("AGE") : l)
                .map(l -> l.replaceAll("\\s+", " ").strip()).collect(Collectors.toList());
    }
}
