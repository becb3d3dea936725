package io.hpacontroller.ops;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.RecordedExit;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import io.hpacontroller.testing.kube.RealKubeExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Order;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A churn of HPAs created and deleted against a real API server (issue 29): a deleted HPA's
 * {@code desired_replicas} series leaves /metrics and its /decisions answer 404 as soon as the controller hears of
 * the deletion, while the live HPA keeps both.
 */
@RealKube
@Order(RealKubeExtension.ORDER_LONG)
class DeletedHpasIT {

    private static final int ROUNDS = 3;
    private static final int PER_ROUND = 20;
    private static final String DESIRED = "horizontal_pod_autoscaler_controller_desired_replicas{";

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String series(TestNamespace ns, String hpa) {
        return DESIRED + "api_group=\"autoscaling\",hpa_name=\"" + hpa + "\",namespace=\"" + ns.name() + "\"}";
    }

    private static long desiredSeries(String metrics) {
        return metrics.lines().filter(l -> l.startsWith(DESIRED)).count();
    }

    private static HorizontalPodAutoscaler hpa(TestNamespace ns, String name) {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).withNamespace(ns.name()).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(name.equals("keep") ? "keep" : "churn")
                .endScaleTargetRef().withMinReplicas(1).withMaxReplicas(4).addNewMetric().withType("Resource").withNewResource().withName("cpu")
                .withNewTarget().withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec().build();
    }

    @Test
    void aDeletedHpaLeavesNoSeriesAndNoDecisions(KubeControlPlane kube, TestNamespace ns) throws Exception {
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("keep", 1));
        ns.create(Workloads.deployment("churn", 1));
        ns.metrics().podUsage("app=keep", "50m", "64Mi");
        ns.metrics().podUsage("app=churn", "50m", "64Mi");
        ns.create(hpa(ns, "keep"));
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), Duration.ofSeconds(1), 2, List.of(ns.name()), Duration.ofSeconds(5));
        KubernetesClient client = ChartReleases.shipped(kube).client();
        ControllerRuntime controller = new ControllerRuntime(client, new ControllerRuntime.Settings(options, null,
                new InetSocketAddress("127.0.0.1", 0), MetricsServing.PLAIN, null, Duration.ofSeconds(5)), new RecordedExit()); // no lease to lose
        try {
            controller.start();
            int port = controller.metricsPort();
            for (int round = 0; round < ROUNDS; round++) {
                int r = round;
                List<String> names = IntStream.range(0, PER_ROUND).mapToObj(i -> "h" + r + "-" + i).toList();
                names.forEach(n -> ns.create(hpa(ns, n)));
                await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
                    String metrics = get(port, "/metrics").body();
                    for (String n : names) {
                        assertThat(metrics).contains(series(ns, n));
                        assertThat(get(port, "/decisions/" + ns.name() + "/" + n).statusCode()).isEqualTo(200);
                    }
                });

                names.forEach(n -> admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName(n).delete());
                await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
                    String metrics = get(port, "/metrics").body();
                    assertThat(desiredSeries(metrics)).as("desired_replicas series for the one live HPA").isEqualTo(1);
                    assertThat(metrics).contains(series(ns, "keep"));
                    for (String n : names) {
                        assertThat(get(port, "/decisions/" + ns.name() + "/" + n).statusCode()).as("/decisions of deleted %s", n).isEqualTo(404);
                    }
                    assertThat(get(port, "/decisions/" + ns.name() + "/keep").statusCode()).isEqualTo(200);
                });
            }
        } finally {
            controller.close();
            client.close();
        }
    }
}
