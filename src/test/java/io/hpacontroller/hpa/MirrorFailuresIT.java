package io.hpacontroller.hpa;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.deploy.HelmChart;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Mirror HPAs on their failure paths, on the real API server (issue 27, items 1 and 2): they show upstream's conditions
 * and events as their autoscaling/v2 twins do (a failing metric, a missing target, pods another HPA selects), a target
 * autoscaling/v2 would have refused is a condition and an event, AmbiguousSelector goes once the other HPA is deleted
 * (of either API), and a status write the API server refuses is a Warning event, a log line and a counter.
 */
@RealKube
class MirrorFailuresIT {

    private static final Duration SETTLED = Duration.ofSeconds(90);

    private static final String HPA = """
            apiVersion: %s
            kind: HorizontalPodAutoscaler
            metadata: {name: %s, namespace: %s}
            spec:
              scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %s}
              minReplicas: 1
              maxReplicas: 4
              metrics:
              - type: Pods
                pods: {metric: {name: %s}, target: {type: AverageValue, averageValue: "%s"}}
            """;

    /** An HPA of this API on the Deployment {@code target}, one Pods metric. */
    private static void hpa(TestNamespace ns, HpaApi api, String name, String target, String metric, String averageValue) {
        LiveFixtures.apply(ns, api, HPA.formatted(api.apiVersion(), name, ns.name(), target, metric, averageValue));
    }

    private static HorizontalPodAutoscaler read(TestNamespace ns, HpaApi api, String name) {
        return LiveFixtures.read(ns, api, name);
    }

    private static String scalingActive(TestNamespace ns, HpaApi api, String name) {
        HorizontalPodAutoscaler h = read(ns, api, name);
        return h == null || h.getStatus() == null || h.getStatus().getConditions() == null ? null : h.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals("ScalingActive")).map(c -> c.getStatus() + " " + c.getReason()).findFirst().orElse(null);
    }

    /** Each HPA's conditions, with the namespace and the mirror's key prefix taken out of the messages. */
    private static Map<String, List<String>> conditions(TestNamespace ns, HpaApi api, String... names) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String name : names) {
            out.put(name, read(ns, api, name).getStatus().getConditions().stream()
                    .map((HorizontalPodAutoscalerCondition c) -> neutral(ns, c.getType() + " " + c.getStatus() + " " + c.getReason() + " " + c.getMessage()))
                    .toList());
        }
        return out;
    }

    private static List<Event> events(TestNamespace ns) {
        return ns.admin().v1().events().inNamespace(ns.name()).list().getItems().stream()
                .filter(e -> "HorizontalPodAutoscaler".equals(e.getInvolvedObject().getKind())).toList();
    }

    /** Each HPA's events: type, reason and message. */
    private static Set<String> eventLines(TestNamespace ns) {
        return new TreeSet<>(events(ns).stream().map(e -> neutral(ns, e.getInvolvedObject().getName() + " " + e.getType() + " " + e.getReason()
                + " " + e.getMessage())).toList());
    }

    private static String neutral(TestNamespace ns, String text) {
        return text.replace(HpaApi.MIRROR.group() + "/", "").replace(ns.name(), "NS");
    }

    @Test
    void mirrorHpasShowWhyTheyFailAsTheirAutoscalingV2TwinsDo(KubeControlPlane kube) {
        TestNamespace builtin = kube.newNamespace("fail-builtin");
        TestNamespace mirror = kube.newNamespace("fail-mirror");
        ChartRelease replacement = ChartReleases.shipped(kube);
        ChartRelease defaults = ChartReleases.mirror(kube);
        for (TestNamespace ns : List.of(builtin, mirror)) {
            ns.create(Workloads.deployment("web", 2));
            ns.create(Workloads.deployment("shared", 1));
            ns.metrics().podsMetric("packets-per-second", "10");
        }
        for (var twin : Map.of(builtin, HpaApi.BUILTIN, mirror, HpaApi.MIRROR).entrySet()) {
            TestNamespace ns = twin.getKey();
            HpaApi api = twin.getValue();
            hpa(ns, api, "api", "web", "queue-length", "5");                  // a metric the adapter does not have
            hpa(ns, api, "gone", "nowhere", "packets-per-second", "5");      // a target that does not exist
            hpa(ns, api, "shared-a", "shared", "packets-per-second", "10");  // two HPAs on one target (at its target: never a scale)
            hpa(ns, api, "shared-b", "shared", "packets-per-second", "10");
        }
        // autoscaling/v2 refuses an averageValue of 0, and so does the mirror's CRD now (its pattern; BadSpecTest has the
        // controller's own refusal of one stored around it)
        assertThatThrownBy(() -> hpa(mirror, HpaApi.MIRROR, "zero", "web", "packets-per-second", "0"))
                .hasMessageContaining("spec.metrics[0].pods.target.averageValue").hasMessageContaining("422");
        // the shared pair's other conditions depend on which was synced first, before the other was known (as upstream's)
        String[] names = {"api", "gone"};
        try (InProcessController a = InProcessController.start(replacement.client(), LiveFixtures.reconciling(builtin, HpaApi.BUILTIN), null);
             InProcessController b = InProcessController.start(defaults.client(), LiveFixtures.reconciling(mirror, HpaApi.MIRROR), null)) {
            await().atMost(SETTLED).ignoreExceptions().untilAsserted(() -> {
                assertThat(scalingActive(mirror, HpaApi.MIRROR, "api")).isEqualTo("False FailedGetPodsMetric");
                assertThat(read(mirror, HpaApi.MIRROR, "gone").getStatus().getConditions()).extracting(c -> c.getType() + " " + c.getReason())
                        .contains("AbleToScale FailedGetScale");
                assertThat(scalingActive(mirror, HpaApi.MIRROR, "shared-a")).isEqualTo("False AmbiguousSelector");
                assertThat(conditions(mirror, HpaApi.MIRROR, names)).isEqualTo(conditions(builtin, HpaApi.BUILTIN, names));
                for (String shared : List.of("shared-a", "shared-b")) {
                    assertThat(conditions(mirror, HpaApi.MIRROR, shared).get(shared)).filteredOn(c -> c.startsWith("ScalingActive "))
                            .isEqualTo(conditions(builtin, HpaApi.BUILTIN, shared).get(shared).stream().filter(c -> c.startsWith("ScalingActive ")).toList());
                }
                assertThat(eventLines(mirror)).containsAll(eventLines(builtin));
            });
            assertThat(read(mirror, HpaApi.MIRROR, "api").getStatus().getCurrentMetrics()).as("the failed metric's entry, as autoscaling/v2 stores it")
                    .singleElement().satisfies(m -> assertThat(m.getType()).isEmpty());
            assertThat(eventLines(mirror)).noneSatisfy(e -> assertThat(e).contains("FailedUpdateStatus"));
            assertThat(mirror.plane().kubectl("describe", "xhpa", "api", "-n", mirror.name()))
                    .containsPattern("Reason:\\s+FailedGetPodsMetric").containsPattern("Warning\\s+FailedGetPodsMetric").doesNotContain("FailedUpdateStatus");
            assertThat(b.runtime().controller().statusWriteFailures(HpaApi.MIRROR)).isZero();
        }
    }

    @Test
    void ambiguousSelectorGoesWhenTheOtherHpaOfEitherApiIsDeleted(KubeControlPlane kube, TestNamespace ns) {
        ChartRelease defaults = ChartReleases.mirror(kube);
        ns.create(Workloads.deployment("web2", 1));
        ns.create(Workloads.deployment("web3", 1));
        hpa(ns, HpaApi.BUILTIN, "web2", "web2", "queue-length", "5"); // left to the built-in controller (there is none here)
        hpa(ns, HpaApi.MIRROR, "web2", "web2", "queue-length", "5");  // issue 27: its metric fails too
        hpa(ns, HpaApi.MIRROR, "web3", "web3", "queue-length", "5");
        hpa(ns, HpaApi.MIRROR, "web3-copy", "web3", "queue-length", "5");
        try (InProcessController controller = InProcessController.start(defaults.client(), LiveFixtures.reconciling(ns, HpaApi.MIRROR), null)) {
            await().atMost(SETTLED).until(() -> "False AmbiguousSelector".equals(scalingActive(ns, HpaApi.MIRROR, "web2"))
                    && "False AmbiguousSelector".equals(scalingActive(ns, HpaApi.MIRROR, "web3")));
            assertThat(read(ns, HpaApi.MIRROR, "web2").getStatus().getConditions()).anySatisfy(c -> assertThat(c.getMessage())
                    .contains("controlled by multiple HPAs: [").contains(HpaApi.MIRROR.key(ns.name(), "web2")).containsPattern("[\\[ ]" + ns.name() + "/web2[,\\]]"));

            LiveFixtures.hpas(ns, HpaApi.BUILTIN).inNamespace(ns.name()).withName("web2").delete();
            LiveFixtures.hpas(ns, HpaApi.MIRROR).inNamespace(ns.name()).withName("web3-copy").delete();
            await().atMost(SETTLED).until(() -> "False FailedGetPodsMetric".equals(scalingActive(ns, HpaApi.MIRROR, "web2"))
                    && "False FailedGetPodsMetric".equals(scalingActive(ns, HpaApi.MIRROR, "web3")));
            assertThat(controller.runtime().controller().statusWriteFailures(HpaApi.MIRROR)).isZero();
        }
    }

    @Test
    void aStatusWriteTheApiServerRefusesIsAWarningEventALogLineAndACounter(KubeControlPlane kube, TestNamespace ns) {
        String release = "hpa-mirror-no-status";
        ChartReleases.installCrds(kube);
        List<HasMetadata> rendered = HelmChart.objects(release, release, ChartReleases.EXTRA_SCALE_TARGETS);
        ClusterRole role = rendered.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast).findFirst().orElseThrow();
        assertThat(role.getRules().removeIf(r -> r.getApiGroups().contains(HpaApi.MIRROR.group())
                && r.getResources().contains("horizontalpodautoscalers/status"))).isTrue();
        ChartRelease crippled = ChartRelease.install(kube, release, rendered);
        ns.create(Workloads.deployment("web", 1));
        hpa(ns, HpaApi.MIRROR, "web", "web", "queue-length", "5");
        Logger log = (Logger) LoggerFactory.getLogger(HpaStatusUpdater.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        try (InProcessController controller = InProcessController.start(crippled.client(), LiveFixtures.reconciling(ns, HpaApi.MIRROR), null)) {
            await().atMost(SETTLED).until(() -> events(ns).stream().anyMatch(e -> e.getReason().equals("FailedUpdateStatus")));
            Event refused = events(ns).stream().filter(e -> e.getReason().equals("FailedUpdateStatus")).findFirst().orElseThrow();
            assertThat(refused.getType()).isEqualTo("Warning");
            assertThat(refused.getMessage()).contains("is forbidden").contains("cannot update resource \"horizontalpodautoscalers/status\"");
            assertThat(controller.runtime().controller().statusWriteFailures(HpaApi.MIRROR)).isPositive();
            assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
                    .contains("status of " + HpaApi.MIRROR.key(ns.name(), "web") + " not written: " + refused.getMessage());
        } finally {
            log.detachAppender(lines);
        }
    }
}
