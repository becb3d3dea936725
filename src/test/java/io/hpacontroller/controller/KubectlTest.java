package io.hpacontroller.controller;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.hpacontroller.controller.LiveFixtures.deployment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** kubectl, a real client, creates an HPA from YAML and reads back what the controller wrote. */
class KubectlTest extends LiveTestBase {

    private static final String HPA_YAML = """
            apiVersion: autoscaling/v2
            kind: HorizontalPodAutoscaler
            metadata:
              name: web
              namespace: demo
            spec:
              scaleTargetRef:
                apiVersion: apps/v1
                kind: Deployment
                name: web
              minReplicas: 1
              maxReplicas: 4
              metrics:
              - type: Resource
                resource:
                  name: cpu
                  target:
                    type: Utilization
                    averageUtilization: 50
            """;

    private String kubectl(Path dir, String... args) throws IOException, InterruptedException {
        Path kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"), "default");
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString(), "--cache-dir", dir.resolve("cache").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("kubectl %s: %s", args, out).isZero();
        return out;
    }

    @Test
    void kubectlCreatesTheHpaAndSeesTheStatusTheControllerWrote(@TempDir Path dir) throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        startController(LiveFixtures.fastOptions());

        Path file = dir.resolve("hpa.yaml");
        Files.writeString(file, HPA_YAML);
        kubectl(dir, "create", "--validate=false", "-f", file.toString());

        await().atMost(Waits.STATE).until(() -> replicas("web") == 4);
        KubernetesSerialization json = new KubernetesSerialization();
        await().atMost(Waits.STATE).untilAsserted(() -> {
            JsonNode hpa = json.unmarshal(kubectl(dir, "get", "hpa", "web", "-n", "demo", "-o", "json"), JsonNode.class);
            assertThat(hpa.path("status").path("desiredReplicas").asInt()).isEqualTo(4);
            assertThat(hpa.path("status").path("currentMetrics").path(0).path("resource").path("current").path("averageUtilization").asInt()).isEqualTo(100);
        });
        await().atMost(Waits.STATE).untilAsserted(() -> {
            String described = kubectl(dir, "describe", "hpa", "web", "-n", "demo");
            // (kubectl finds events with a field selector the mock server does not evaluate, so it lists none here)
            assertThat(described).contains("Reference:").contains("Deployment/web")
                    .containsPattern("resource cpu on pods\\s+\\(as a percentage of request\\):\\s+100% \\(100m\\) / 50%")
                    .contains("Deployment pods:").contains("4 current / 4 desired")
                    .containsPattern("ScalingActive\\s+True\\s+ValidMetricFound");
        });
    }
}
