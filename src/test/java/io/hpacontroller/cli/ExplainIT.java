package io.hpacontroller.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.ops.ControllerRuntime;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.testing.RecordedExit;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpecBuilder;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.MirrorHpa;
import io.hpacontroller.testing.kube.ChartRelease;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code explain} on a real API server agrees with what the controller then writes: without the controller
 * (history unknown) it answers what a controller that has just started decides, and writes nothing; with the
 * controller's history it answers what the controller decides at its next sync. It reads mirror HPAs (by name, or as
 * {@code xhpa/NAMESPACE/NAME}) with their controller's history, and each failure is one line naming its cause.
 */
@RealKube
class ExplainIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough that explain runs between two syncs of the controller. */
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(30);

    private static int replicas(TestNamespace ns) {
        return ns.admin().apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas();
    }

    private static long readyPods(TestNamespace ns) {
        return ns.admin().pods().inNamespace(ns.name()).withLabel("app", "web").list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null && p.getStatus().getConditions() != null
                        && p.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
                .count();
    }

    private static JsonNode decisions(int port, TestNamespace ns) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/decisions/" + ns.name() + "/web")).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body()).path("decisions");
    }

    private static JsonNode explainJson(KubeControlPlane kube, TestNamespace ns, String... more) throws Exception {
        String[] args = new String[6 + more.length];
        args[0] = "explain";
        args[1] = ns.name() + "/web";
        args[2] = "--kubeconfig=" + kube.adminKubeconfig();
        args[3] = "--controller-namespace=" + ns.name(); // no Lease there unless the test says where the controller is
        args[4] = "-o";
        args[5] = "json";
        System.arraycopy(more, 0, args, 6, more.length);
        CommandRun run = CommandRun.of(args);
        assertThat(run.exit()).as(run.err()).isZero();
        return JSON.readTree(run.out());
    }

    @Test
    void explainAnswersWhatTheControllerThenWrites(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ns.create(Workloads.deployment("web", 2));
        // a per-pod metric at twice its target (no CPU initialization rule, so new pods count once they run)
        ns.metrics().podsMetric("packets-per-second", "10");
        // its own sync period of 10 minutes: after the sync at its creation, its first slot is minutes away on most
        // runs (its phase is on the wall clock), so explain can run between two syncs; the test then asks for the
        // next sync by editing the annotation to the flag's 30 s, picked up 30 s after the last sync
        ns.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").withNamespace(ns.name())
                .addToAnnotations(ControlAnnotations.SYNC_PERIOD, "10m").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(8).addNewMetric().withType("Pods").withNewPods().withNewMetric()
                .withName("packets-per-second").endMetric().withNewTarget().withType("AverageValue").withAverageValue(new Quantity("5"))
                .endTarget().endPods().endMetric().endSpec()
                .build());
        await().atMost(Waits.STATE).until(() -> readyPods(ns) == 2);

        // no controller: the history is unknown, explain decides as a controller that has just started, and writes nothing
        Instant before = Instant.now();
        JsonNode alone = explainJson(kube, ns);
        Instant after = Instant.now();
        assertThat(alone.path("history").path("known").asBoolean()).isFalse();
        assertThat(alone.path("summary").asText()).startsWith("scaling up from 2 to 4: ");
        assertThat(alone.path("wouldWrite").path("scale").asInt()).isEqualTo(4);
        kube.audit().sync();
        assertThat(ns.count(ns.audit().user("test-admin").writes().between(before, after))).as("explain writes nothing").isZero();
        assertThat(replicas(ns)).isEqualTo(2);

        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), SYNC_PERIOD, 2, List.of(ns.name()), Duration.ofSeconds(5));
        KubernetesClient client = ChartReleases.shipped(kube).client(); // the controller as the chart's ServiceAccount
        ControllerRuntime controller = new ControllerRuntime(client, new ControllerRuntime.Settings(options, null,
                new InetSocketAddress("127.0.0.1", 0), MetricsServing.PLAIN, null, Duration.ofSeconds(5)), new RecordedExit()); // no lease to lose
        try {
            controller.start();
            // the controller's first sync writes what explain said
            await().atMost(Waits.STATE).until(() -> replicas(ns) == 4);
            // a sync is recorded when it ends, after its status write: the scale can be seen before
            JsonNode first = await().atMost(Waits.STATE).until(() -> decisions(controller.metricsPort(), ns), d -> d.size() > 0);
            assertThat(first.get(first.size() - 1).path("desiredReplicas").asInt())
                    .isEqualTo(alone.path("trace").path("desiredReplicas").asInt()).isEqualTo(4);
            await().atMost(Waits.STATE).until(() -> readyPods(ns) == 4);

            // with the controller's history, between two of its syncs: explain answers its next decision
            JsonNode known = explainJson(kube, ns, "--controller-url=http://127.0.0.1:" + controller.metricsPort());
            assertThat(known.path("history").path("known").asBoolean()).isTrue();
            assertThat(known.path("summary").asText()).startsWith("scaling up from 4 to 8: ");
            long explainedAt = Instant.parse(known.path("trace").path("time").asText()).toEpochMilli(); // RFC 3339
            assertThat(decisions(controller.metricsPort(), ns)).as("explain ran between two syncs").hasSize(first.size());

            ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").edit(h -> {
                h.getMetadata().getAnnotations().put(ControlAnnotations.SYNC_PERIOD, SYNC_PERIOD.toSeconds() + "s");
                return h;
            });
            await().atMost(SYNC_PERIOD.plusSeconds(30)).until(() -> {
                JsonNode d = decisions(controller.metricsPort(), ns);
                return Instant.parse(d.get(d.size() - 1).path("time").asText()).toEpochMilli() > explainedAt;
            });
            JsonNode d = decisions(controller.metricsPort(), ns);
            JsonNode next = d.get(d.size() - 1);
            assertThat(next.path("desiredReplicas").asInt()).isEqualTo(known.path("trace").path("desiredReplicas").asInt()).isEqualTo(8);
            assertThat(next.path("action").asText()).isEqualTo(known.path("trace").path("action").asText()).isEqualTo("SCALE_UP");
            assertThat(next.path("rawDesiredReplicas").asInt()).isEqualTo(known.path("trace").path("rawDesiredReplicas").asInt());
            await().atMost(Waits.STATE).until(() -> replicas(ns) == 8);
        } finally {
            controller.close();
            client.close();
        }
    }

    @Test
    void explainReadsAMirrorHpaWithItsControllersHistoryAndSaysWhatFailsInOneLine(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease defaults = ChartReleases.mirror(kube); // the chart's default install: the mirror API
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podsMetric("packets-per-second", "10");
        MirrorHpa mirror = new MirrorHpa();
        mirror.getMetadata().setName("web");
        mirror.getMetadata().setNamespace(ns.name());
        mirror.setSpec(new HorizontalPodAutoscalerSpecBuilder().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment")
                .withName("web").endScaleTargetRef().withMinReplicas(1).withMaxReplicas(3).addNewMetric().withType("Pods").withNewPods()
                .withNewMetric().withName("packets-per-second").endMetric().withNewTarget().withType("AverageValue")
                .withAverageValue(new Quantity("5")).endTarget().endPods().endMetric().build());
        ns.admin().resources(MirrorHpa.class).inNamespace(ns.name()).resource(mirror).create();
        // issue 38.2: a plain autoscaling/v2 HPA (of another target), which the default --hpa-apis leaves to the built-in controller
        ns.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("plain").withNamespace(ns.name()).endMetadata()
                .withSpec(new HorizontalPodAutoscalerSpecBuilder(mirror.getSpec()).editScaleTargetRef().withName("other").endScaleTargetRef()
                        .build()).build());
        await().atMost(Duration.ofSeconds(60)).until(() -> readyPods(ns) == 2);
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), Duration.ofSeconds(2), 2, List.of(ns.name()),
                Duration.ofSeconds(5), java.util.Set.of(HpaApi.MIRROR), false);
        ControllerRuntime controller = new ControllerRuntime(defaults.client(), new ControllerRuntime.Settings(options, null,
                new InetSocketAddress("127.0.0.1", 0), MetricsServing.PLAIN, null, Duration.ofSeconds(5)), new RecordedExit()); // no lease to lose
        try {
            controller.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> replicas(ns) == 3); // at its maximum: every sync now decides the same
            String url = "--controller-url=http://127.0.0.1:" + controller.metricsPort();
            HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + controller.metricsPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body()).contains("hpa_controller_hpas_not_reconciled{api_group=\"autoscaling\"} 1.0");
            CommandRun plain = CommandRun.of("explain", ns.name() + "/plain", "--kubeconfig=" + kube.adminKubeconfig(), url);
            assertThat(plain.exit()).as(plain.err()).isZero();
            assertThat(plain.out()).startsWith(ns.name() + "/plain: left to the built-in controller (see --hpa-apis): the controller"
                    + " reconciles the HPAs of autoscaling.hpa-controller.io/v1 only; were it to reconcile this one, ");
            for (String target : List.of(ns.name() + "/web", "xhpa/" + ns.name() + "/web")) {
                CommandRun run = CommandRun.of("explain", target, "--kubeconfig=" + kube.adminKubeconfig(), url);
                assertThat(run.exit()).as(run.err()).isZero();
                assertThat(run.out()).startsWith(HpaApi.MIRROR.key(ns.name(), "web") + ": ")
                        .contains("history:  from the controller at http://127.0.0.1:" + controller.metricsPort() + "\n")
                        .contains("the controller's last decision (");
            }
        } finally {
            controller.close();
        }

        CommandRun builtin = CommandRun.of("explain", "hpa/" + ns.name() + "/web", "--kubeconfig=" + kube.adminKubeconfig());
        assertThat(builtin.exit()).isEqualTo(2);
        assertThat(builtin.err()).startsWith("error: horizontalpodautoscaler hpa/" + ns.name() + "/web not found\n");

        Path unreachable = Files.createTempFile("unreachable", ".kubeconfig");
        Files.writeString(unreachable, Files.readString(kube.adminKubeconfig()).replace(kube.url(), "https://127.0.0.1:1"));
        CommandRun down = CommandRun.of("explain", ns.name() + "/web", "--kubeconfig=" + unreachable);
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.err()).isEqualTo("error: cannot read horizontalpodautoscaler " + ns.name() + "/web: Get \"https://127.0.0.1:1/apis/"
                + "autoscaling/v2/namespaces/" + ns.name() + "/horizontalpodautoscalers/web\": dial tcp 127.0.0.1:1: connect: connection refused\n");

        CommandRun forbidden = CommandRun.of("explain", ns.name() + "/web", "--kubeconfig="
                + kube.kubeconfigForServiceAccount(ns.name(), "default", null));
        assertThat(forbidden.exit()).isEqualTo(1);
        assertThat(forbidden.err()).startsWith("error: cannot read horizontalpodautoscaler " + ns.name() + "/web: horizontalpodautoscalers.autoscaling "
                + "\"web\" is forbidden: User \"system:serviceaccount:" + ns.name() + ":default\" cannot get resource").doesNotContain("\tat ")
                .hasLineCount(1);
    }
}
