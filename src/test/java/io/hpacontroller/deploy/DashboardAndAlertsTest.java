package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.ops.ControllerRuntime;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.RecordedExit;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The chart's Grafana dashboard and PrometheusRule are built on the metrics the controller exports: every
 * series they select (name and label values) is on the /metrics page of a controller that has scaled an HPA.
 * kube-state-metrics' series (kube_*) are the one exception.
 */
class DashboardAndAlertsTest {

    /** A series selector: {@code name{label="value", ...}} or {@code label_values(name, ...)}. */
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)}|label_values\\(([a-zA-Z_:][a-zA-Z0-9_:]*)");
    private static final Pattern EQUALS = Pattern.compile("([a-zA-Z_]+)\\s*=\\s*\"([^\"]*)\"");

    /** Label values that appear only once such a reconcile happened (README, "Metrics"). */
    private static final Map<String, Set<String>> ENUMERATED = Map.of(
            "action", Set.of("scale_up", "scale_down", "none"),
            "error", Set.of("spec", "internal", "none"));

    private static String scraped;

    @BeforeAll
    static void scrapeAControllerThatScaled() throws Exception {
        try (MockCluster cluster = MockCluster.start()) {
            KubernetesClient client = cluster.client();
            client.apps().deployments().inNamespace("shop").resource(new DeploymentBuilder()
                    .withNewMetadata().withName("web").withNamespace("shop").endMetadata()
                    .withNewSpec().withReplicas(2).withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector()
                    .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "web")).endMetadata()
                    .withNewSpec().addNewContainer().withName("app").withImage("nginx").withNewResources()
                    .addToRequests("cpu", new Quantity("100m")).endResources().endContainer().endSpec()
                    .endTemplate().endSpec().build()).create();
            cluster.workloads().setCpuPerPod("shop", "web", "100m");
            client.autoscaling().v2().horizontalPodAutoscalers().inNamespace("shop").resource(new HorizontalPodAutoscalerBuilder()
                    .withNewMetadata().withName("web").withNamespace("shop").withGeneration(1L).endMetadata()
                    .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                    .withMinReplicas(1).withMaxReplicas(4).addNewMetric().withType("Resource").withNewResource().withName("cpu")
                    .withNewTarget().withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec()
                    .build()).create();
            ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), Duration.ofMillis(250), 2, List.of(),
                    Duration.ofSeconds(5));
            LeaseSettings election = Waits.steadyLease("hpa-controller", "hpa-controller", "test");
            RecordedExit exit = new RecordedExit();
            try (KubernetesClient controllerClient = cluster.newClient();
                 ControllerRuntime runtime = new ControllerRuntime(controllerClient, new ControllerRuntime.Settings(options, election,
                         new InetSocketAddress("127.0.0.1", 0), MetricsServing.PLAIN, null, Duration.ofSeconds(5)), exit)) {
                runtime.start();
                await().atMost(Waits.STATE).failFast("the controller lost its lease", () -> !exit.statuses().isEmpty())
                        .until(() -> metrics(runtime.metricsPort())
                        .contains("horizontal_pod_autoscaler_controller_desired_replicas{api_group=\"autoscaling\",hpa_name=\"web\",namespace=\"shop\"} 4.0"));
                scraped = metrics(runtime.metricsPort());
            }
        }
    }

    private static String metrics(int port) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void theDashboardSelectsOnlySeriesTheControllerExports() throws Exception {
        String dashboard = Files.readString(HelmChart.CHART_DIR.resolve("dashboards/hpa-controller.json"));
        List<String> expressions = new ArrayList<>();
        Matcher m = Pattern.compile("\"(?:expr|definition)\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(dashboard);
        while (m.find()) {
            expressions.add(m.group(1).replace("\\\"", "\""));
        }

        assertThat(expressions).hasSizeGreaterThan(15);
        assertThat(missing(expressions)).isEmpty();
    }

    @Test
    void theAlertsSelectOnlySeriesTheControllerExportsOrKubeStateMetrics() {
        GenericKubernetesResource rule = (GenericKubernetesResource) HelmChart.render(Map.of("metrics.prometheusRule.enabled", true))
                .ofKind("PrometheusRule").get(0);
        List<Map<String, Object>> rules = rule.get("spec", "groups", 0, "rules");
        List<String> expressions = rules.stream().map(r -> (String) r.get("expr")).toList();

        assertThat(expressions).hasSize(5);
        assertThat(missing(expressions)).isEmpty();
    }

    /** Selectors no scraped series satisfies: the metric name, and every label="value" but job (a target label). */
    private static List<String> missing(List<String> expressions) {
        List<String> missing = new ArrayList<>();
        for (String expr : expressions) {
            Matcher s = SELECTOR.matcher(expr);
            while (s.find()) {
                String name = s.group(1) != null ? s.group(1) : s.group(3);
                if (name.startsWith("kube_")) {
                    continue;
                }
                Map<String, String> labels = new LinkedHashMap<>();
                if (s.group(2) != null) {
                    Matcher eq = EQUALS.matcher(s.group(2));
                    while (eq.find()) {
                        if (!eq.group(1).equals("job") && !s.group(2).contains(eq.group(1) + "!=") && !s.group(2).contains(eq.group(1) + "=~")) {
                            labels.put(eq.group(1), eq.group(2));
                        }
                    }
                }
                boolean found = scraped.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                        .anyMatch(l -> labels.entrySet().stream().allMatch(e -> l.contains(e.getKey() + "=\"" + e.getValue() + "\"")
                                || ENUMERATED.getOrDefault(e.getKey(), Set.of()).contains(e.getValue()) && l.contains(e.getKey() + "=\"")));
                if (!found) {
                    missing.add(name + labels + " in " + expr);
                }
            }
        }
        return missing;
    }
}
