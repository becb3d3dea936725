package io.hpacontroller.cli;

import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
            // the product's logging (LogSetup), not the tests' (which keeps INFO quiet)
            Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "run", "--kubeconfig", kubeconfig.toString(), "--context", "mock", "--namespace", "shop",
                    "--hpa-apis=autoscaling/v2", "--leader-elect=false", "--horizontal-pod-autoscaler-sync-period=1s",
                    "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0", "--log-format=json"))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                // a JVM's start, the caches and two syncs
                await().atMost(Waits.STATE).until(() ->
                        client.apps().deployments().inNamespace("shop").withName("web").get().getSpec().getReplicas() == 4);
                await().atMost(Waits.STATE).untilAsserted(() -> assertThat(Files.readString(log)).contains("{\"newReplicas\":\"4\"}"));
            } finally {
                p.destroy(); // SIGTERM
            }
            assertThat(p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(out).contains("\"formattedMessage\":\"scaled shop\\/web from 2 to 4 replicas").contains("shutting down")
                    .contains("\"level\":\"INFO\"").doesNotContain("\"message\":\"scaled {}");
            assertThat(p.exitValue()).as(out).isIn(0, 143);
        }
    }

    /** The command line of a {@code run} process with the product's logging configuration. */
    private static ProcessBuilder run(Path home, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Duser.home=" + home,
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("KUBECONFIG");
        pb.environment().remove("KUBERNETES_SERVICE_HOST");
        return pb;
    }

    private static String finish(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return out;
    }

    /** The default --hpa-apis on a cluster without the mirror API's CRD: exit 2, one line, what to do. */
    @Test
    void theMirrorApiWithoutItsCrdIsExitCode2(@TempDir Path dir) throws Exception {
        try (MockCluster cluster = MockCluster.start()) {
            cluster.fail("GET", "^/apis/autoscaling\\.hpa-controller\\.io/v1$", 404, 100);
            Path kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"), "shop");
            Process p = run(dir, "--kubeconfig", kubeconfig.toString(), "--leader-elect=false",
                    "--metrics-bind-address=0", "--health-probe-bind-address=0").start();

            String out = finish(p);

            assertThat(p.exitValue()).isEqualTo(2);
            assertThat(out).contains("error: the API server does not serve horizontalpodautoscalers.autoscaling.hpa-controller.io (--hpa-apis includes "
                    + "autoscaling.hpa-controller.io/v1) nor horizontalpodautoscalerhistories.autoscaling.hpa-controller.io (--persist-history is on): "
                    + "install the CRDs, all at once: kubectl apply --server-side -f charts/hpa-controller/crds/")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void anUnreadableKubeconfigIsAClearError(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing" + File.separator + "config");
        Process p = run(dir, "--kubeconfig", missing.toString(), "--leader-elect=false",
                "--metrics-bind-address=0", "--health-probe-bind-address=0").start();

        String out = finish(p);

        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out).startsWith("error: --kubeconfig " + missing + ": no such file\n").doesNotContain("\tat ");
    }

    @Test
    void outsideAClusterWithoutAKubeconfigThereIsNoClusterToConnectTo(@TempDir Path dir) throws Exception {
        Process p = run(dir, "--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0").start();

        String out = finish(p);

        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out).startsWith("error: no cluster to connect to: no --kubeconfig, $KUBECONFIG is not set, "
                + dir.resolve(".kube").resolve("config") + " does not exist, and this is not a pod").doesNotContain("\tat ");
    }

    /** Nothing listens at the server's address: the process waits for it, alive and not ready, and stops on SIGTERM. */
    @Test
    void anUnreachableApiServerIsRetriedWithBackoffNotReadyUntilSigterm(@TempDir Path dir) throws Exception {
        int apiPort = freePort();
        int healthPort = freePort();
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: gone
                  cluster: {server: "https://127.0.0.1:%d"}
                contexts:
                - name: gone
                  context: {cluster: gone, user: u}
                current-context: gone
                users:
                - name: u
                  user: {token: t}
                """.formatted(apiPort));
        Path log = dir.resolve("controller.log");
        Process p = run(dir, "--kubeconfig", kubeconfig.toString(), "--metrics-bind-address=0",
                "--health-probe-bind-address=127.0.0.1:" + healthPort).redirectOutput(log.toFile()).start();
        try {
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(Files.readString(log)).contains("; attempt 3, next in 4s"));
            assertThat(p.isAlive()).isTrue();
            assertThat(probe(healthPort, "/healthz")).isEqualTo(200);
            assertThat(probe(healthPort, "/readyz")).isEqualTo(503);
        } finally {
            p.destroy(); // SIGTERM
        }
        assertThat(p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).as("stops on SIGTERM while waiting").isTrue();
        String out = Files.readString(log);
        assertThat(out.lines().filter(l -> l.contains("cannot reach the API server at https://127.0.0.1:" + apiPort + ": dial tcp 127.0.0.1:" + apiPort + ": connect: connection refused")))
                .as(out).hasSizeGreaterThanOrEqualTo(3)
                .anySatisfy(l -> assertThat(l).contains("attempt 1, next in 1s"))
                .anySatisfy(l -> assertThat(l).contains("attempt 2, next in 2s"));
        assertThat(out).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(p.exitValue()).as(out).isIn(0, 143);
    }

    /** The credentials are good but the controller may not list HPAs: one line naming the permission, exit 1. */
    @Test
    void aMissingPermissionAtStartIsNamedWithoutAStackTrace(@TempDir Path dir) throws Exception {
        try (MockCluster cluster = MockCluster.start()) {
            cluster.forbid("list", "horizontalpodautoscalers.autoscaling");
            Path kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"), "default");
            Process p = run(dir, "--kubeconfig", kubeconfig.toString(), "--leader-elect=false",
                    "--metrics-bind-address=0", "--health-probe-bind-address=0").start();

            String out = finish(p);

            assertThat(p.exitValue()).as(out).isEqualTo(1);
            assertThat(out.lines().filter(l -> l.contains("ERROR"))).singleElement().asString()
                    .contains("cannot run against " + cluster.url().replaceAll("/$", ""))
                    .contains("(context mock of --kubeconfig " + kubeconfig + "): missing permissions: "
                            + "cannot list horizontalpodautoscalers.autoscaling at the cluster scope");
            assertThat(out).doesNotContain("\tat ").doesNotContain("Exception");
            assertThat(cluster.count("GET", path -> path.contains("horizontalpodautoscalers"))).as("no informer started").isZero();
        }
    }

    /** A lost lease ends the process with status 1, as kube-controller-manager does: the pod restarts as a standby. */
    @Test
    void aLostLeaseEndsTheProcessWithStatus1(@TempDir Path dir) throws Exception {
        try (MockCluster cluster = MockCluster.start()) {
            Path kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"), "shop");
            Path log = dir.resolve("controller.log");
            Process p = run(dir, "--kubeconfig", kubeconfig.toString(), "--hpa-apis=autoscaling/v2", "--leader-elect-resource-namespace=shop",
                    "--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=300ms",
                    "--metrics-bind-address=0", "--health-probe-bind-address=0").redirectOutput(log.toFile()).start();
            try {
                await().atMost(Waits.STATE).until(() -> cluster.client().leases().inNamespace("shop").withName("hpa-controller").get() != null);
                cluster.fail("PUT", "^/apis/coordination\\.k8s\\.io/v1/namespaces/shop/leases/hpa-controller$", 500, Integer.MAX_VALUE); // no renewal
                assertThat(p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).as("ends once the lease is lost").isTrue();
            } finally {
                p.destroy();
            }
            String out = Files.readString(log);
            assertThat(p.exitValue()).as(out).isEqualTo(1);
            assertThat(out).contains("lost the lease shop/hpa-controller (not renewed within PT2S): stopping")
                    .contains("exiting with status 1: the lease was lost").contains("stopped");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static int probe(int port, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }
}
