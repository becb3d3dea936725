package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.controller.ScaleTargetsIT;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An HPA and its mirror twin (the same manifest with {@code apiVersion: autoscaling.hpa-controller.io/v1})
 * through the same scenario, each in a namespace of its own on the shared control plane: the built-in one
 * reconciled as a full replacement, the mirror one by the chart's default install. Both give the same
 * replica timeline, conditions and events (on the mirror object for the mirror), and {@code kubectl get}
 * prints the same row for both; the default install's RBAC refuses nothing.
 */
@RealKube
class MirrorTwinIT {

    private static final String HPA = """
            apiVersion: %s
            kind: HorizontalPodAutoscaler
            metadata:
              name: web
              namespace: %s
            spec:
              scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
              minReplicas: 1
              maxReplicas: 4
              metrics:
              - type: Resource
                resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
            """;

    @Test
    void anHpaAndItsMirrorTwinScaleAlikeAndReadAlike(KubeControlPlane kube) {
        TestNamespace builtin = kube.newNamespace("twin-builtin");
        TestNamespace mirror = kube.newNamespace("twin-mirror");
        ChartRelease replacement = ChartReleases.shipped(kube);
        ChartRelease defaults = ChartReleases.mirror(kube);
        for (TestNamespace ns : List.of(builtin, mirror)) {
            ns.create(Workloads.deployment("web", 2));
            ns.metrics().podUsage("app=web", "100m", "64Mi");
        }
        await().atMost(Waits.STATE).until(() -> readySinceAWhile(builtin) && readySinceAWhile(mirror));
        Instant start = Instant.now();
        create(builtin, HpaApi.BUILTIN);
        create(mirror, HpaApi.MIRROR);
        try (InProcessController a = InProcessController.start(replacement.client(), LiveFixtures.reconciling(builtin, HpaApi.BUILTIN), null);
             InProcessController b = InProcessController.start(defaults.client(), LiveFixtures.reconciling(mirror, HpaApi.MIRROR), null)) {
            await().atMost(Waits.STATE).until(() -> limitedAtMax(builtin, HpaApi.BUILTIN) && limitedAtMax(mirror, HpaApi.MIRROR));
            assertThat(table(mirror, "xhpa")).isEqualTo(table(builtin, "hpa"));
            for (TestNamespace ns : List.of(builtin, mirror)) {
                ns.metrics().podUsage("app=web", "1m", "64Mi");
            }
            await().atMost(Waits.STATE).until(() -> settledAtMin(builtin, HpaApi.BUILTIN) && settledAtMin(mirror, HpaApi.MIRROR));

            assertThat(rescales(mirror)).as("replica timeline").isEqualTo(rescales(builtin)).containsExactly("New size: 4", "New size: 1");
            assertThat(conditions(mirror, HpaApi.MIRROR)).isEqualTo(conditions(builtin, HpaApi.BUILTIN));
            assertThat(events(mirror)).isEqualTo(events(builtin));
            assertThat(involved(mirror)).containsOnly(HpaApi.MIRROR.apiVersion() + " HorizontalPodAutoscaler web");
            assertThat(involved(builtin)).containsOnly("autoscaling/v2 HorizontalPodAutoscaler web");
            assertThat(table(mirror, "xhpa")).isEqualTo(table(builtin, "hpa"));
        }
        assertThat(kube.audit().events(AuditEvent.Filter.all().user(defaults.user()).since(start).code(403)))
                .as("the default install's RBAC covers the mirror API").isEmpty();
    }

    private static void create(TestNamespace ns, HpaApi api) {
        LiveFixtures.apply(ns, api, HPA.formatted(api.apiVersion(), ns.name()));
    }

    /** Running, Ready, and Ready for longer than the fake metrics window, so no first sync sees an unready pod. */
    private static boolean readySinceAWhile(TestNamespace ns) {
        List<Pod> ready = ScaleTargetsIT.readyPods(ns, "web");
        return ready.size() == 2 && ready.stream().allMatch(p -> p.getStatus().getConditions().stream().filter(c -> c.getType().equals("Ready"))
                .allMatch(c -> Instant.parse(c.getLastTransitionTime()).plusSeconds(3).isBefore(Instant.now())));
    }

    private static HorizontalPodAutoscaler read(TestNamespace ns, HpaApi api) {
        return LiveFixtures.read(ns, api, "web");
    }

    private static String condition(HorizontalPodAutoscaler h, String type) {
        return h == null || h.getStatus() == null || h.getStatus().getConditions() == null ? null
                : h.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).map(c -> c.getStatus() + " " + c.getReason())
                .findFirst().orElse(null);
    }

    private static boolean limitedAtMax(TestNamespace ns, HpaApi api) {
        HorizontalPodAutoscaler h = read(ns, api);
        return h != null && h.getStatus() != null && Integer.valueOf(4).equals(h.getStatus().getCurrentReplicas())
                && "True TooManyReplicas".equals(condition(h, "ScalingLimited")) && "True ReadyForNewScale".equals(condition(h, "AbleToScale"));
    }

    private static boolean settledAtMin(TestNamespace ns, HpaApi api) {
        HorizontalPodAutoscaler h = read(ns, api);
        return h != null && h.getStatus() != null && Integer.valueOf(1).equals(h.getStatus().getCurrentReplicas())
                && "True ReadyForNewScale".equals(condition(h, "AbleToScale"));
    }

    private static List<String> conditions(TestNamespace ns, HpaApi api) {
        return read(ns, api).getStatus().getConditions().stream()
                .map((HorizontalPodAutoscalerCondition c) -> c.getType() + " " + c.getStatus() + " " + c.getReason() + " " + c.getMessage()).toList();
    }

    private static List<Event> hpaEvents(TestNamespace ns) {
        return ns.admin().v1().events().inNamespace(ns.name()).list().getItems().stream()
                .filter(e -> "HorizontalPodAutoscaler".equals(e.getInvolvedObject().getKind())).toList();
    }

    private static List<String> rescales(TestNamespace ns) {
        return hpaEvents(ns).stream().filter(e -> e.getReason().equals("SuccessfulRescale"))
                .sorted(Comparator.comparing(Event::getFirstTimestamp)).map(e -> e.getMessage().replaceAll(";.*", "")).toList();
    }

    private static Set<String> events(TestNamespace ns) {
        return new TreeSet<>(hpaEvents(ns).stream().map(e -> e.getType() + " " + e.getReason() + " " + e.getMessage() + " "
                + e.getSource().getComponent()).toList());
    }

    private static Set<String> involved(TestNamespace ns) {
        return new TreeSet<>(hpaEvents(ns).stream().map(e -> e.getInvolvedObject().getApiVersion() + " " + e.getInvolvedObject().getKind()
                + " " + e.getInvolvedObject().getName()).toList());
    }

    /**
     * {@code kubectl get hpa} / {@code kubectl get xhpa}, every column but AGE. kube-apiserver v1.26 prints a resource
     * metric without its name ({@code 100%/50%}), the mirror's column as upstream prints it since ({@code cpu: 100%/50%}).
     */
    private static List<String> table(TestNamespace ns, String resource) {
        return ns.plane().kubectl("get", resource, "-n", ns.name()).lines()
                .map(l -> l.replaceAll("\\s+\\S+$", "").replace("cpu: ", "").replaceAll("\\s+", " ")).toList();
    }
}
