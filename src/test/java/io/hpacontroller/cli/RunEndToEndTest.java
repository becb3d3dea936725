package io.hpacontroller.cli;

import io.hpacontroller.testing.MockCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code run --kubeconfig ...} as a process: it scales a Deployment, then shuts down cleanly on SIGTERM. */
class RunEndToEndTest {

    @Test
    void runWithAKubeconfigScalesAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        try (MockCluster cluster = MockCluster.start()) {
            var client = cluster.client();
            client.apps().deployments().inNamespace("shop").resource(new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
                    .withNewMetadata().withName("web").withNamespace("shop").endMetadata()
                    .withNewSpec().withReplicas(2).withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector()
                    .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "web")).endMetadata()
                    .withNewSpec().addNewContainer().withName("app").withImage("nginx").withNewResources()
                    .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m")).endResources().endContainer().endSpec()
                    .endTemplate().endSpec().build()).create();
            cluster.workloads().setCpuPerPod("shop", "web", "100m");
            client.autoscaling().v2().horizontalPodAutoscalers().inNamespace("shop").resource(new io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder()
                    .withNewMetadata().withName("web").withNamespace("shop").withGeneration(1L).endMetadata()
                    .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                    .withMinReplicas(1).withMaxReplicas(4).addNewMetric().withType("Resource").withNewResource().withName("cpu")
                    .withNewTarget().withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec()
                    .build()).create();

            Path kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"), "shop");
            Path log = dir.resolve("controller.log");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            // the product's logging configuration, not the tests' (which keeps INFO quiet)
            Process p = new ProcessBuilder(List.of(java, "-Dlogback.configurationFile=logback.xml", "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "run", "--kubeconfig", kubeconfig.toString(), "--context", "mock", "--namespace", "shop",
                    "--leader-elect=false", "--horizontal-pod-autoscaler-sync-period=1s",
                    "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0", "--log-format=json"))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() ->
                        client.apps().deployments().inNamespace("shop").withName("web").get().getSpec().getReplicas() == 4);
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(Files.readString(log)).contains("{\"newReplicas\":\"4\"}"));
            } finally {
                p.destroy(); // SIGTERM
            }
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(out).contains("\"formattedMessage\":\"scaled shop\\/web from 2 to 4 replicas").contains("shutting down")
                    .contains("\"level\":\"INFO\"").doesNotContain("\"message\":\"scaled {}");
            assertThat(p.exitValue()).as(out).isIn(0, 143);
        }
    }

    @Test
    void anUnreadableKubeconfigIsAClearError(@TempDir Path dir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run",
                "--kubeconfig", dir.resolve("missing" + File.separator + "config").toString(), "--leader-elect=false",
                "--metrics-bind-address=0", "--health-probe-bind-address=0")).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isNotZero();
        assertThat(out).contains("cannot read kubeconfig");
    }
}
