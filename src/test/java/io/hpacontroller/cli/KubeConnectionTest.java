package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.hpacontroller.api.KubeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where {@code run} connects: the kubeconfig, the context, or the pod's service account, checked before connecting. */
class KubeConnectionTest {

    /** Two clusters, so that connecting to the wrong context would show in the server URL. */
    static final String KUBECONFIG = """
            apiVersion: v1
            kind: Config
            clusters:
            - name: prod
              cluster: {server: "https://prod.example:6443"}
            - name: staging
              cluster: {server: "https://staging.example:6443"}
            contexts:
            - name: prod
              context: {cluster: prod, user: me}
            - name: staging
              context: {cluster: staging, user: me}
            current-context: prod
            users:
            - name: me
              user: {token: secret}
            """;

    @TempDir
    Path dir;

    private KubeConnection resolve(Path kubeconfig, String context, Map<String, String> env) throws KubeConnection.Problem {
        return KubeConnection.resolve(kubeconfig, context, env, dir.resolve("home"), dir.resolve("no-token"));
    }

    private Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void theNamedContextAndNoOtherIsUsed() throws Exception {
        Path config = file("config", KUBECONFIG);

        KubeConnection staging = resolve(config, "staging", Map.of());
        assertThat(staging.server()).startsWith("https://staging.example:6443");
        assertThat(staging.source()).isEqualTo("context staging of --kubeconfig " + config);

        assertThat(resolve(config, null, Map.of()).server()).as("current-context").startsWith("https://prod.example:6443");
    }

    @Test
    void anUnknownContextIsAnErrorNamingTheContextsThatExist() throws Exception {
        Path config = file("config", KUBECONFIG);

        assertThatThrownBy(() -> resolve(config, "stagign", Map.of()))
                .isInstanceOf(KubeConnection.Problem.class)
                .hasMessage("--context stagign: no such context in " + config + " (contexts: prod, staging)");
    }

    @Test
    void aKubeconfigThatDoesNotExistOrDoesNotParseIsAnError() throws Exception {
        Path missing = dir.resolve("missing").resolve("config");
        assertThatThrownBy(() -> resolve(missing, null, Map.of())).hasMessage("--kubeconfig " + missing + ": no such file");
        assertThatThrownBy(() -> resolve(dir, null, Map.of())).hasMessage("--kubeconfig " + dir + ": not a file");

        Path broken = file("broken", KUBECONFIG.replace("{server: \"https://prod.example:6443\"}", "{server: \"https://prod.example:6443\""));
        assertThatThrownBy(() -> resolve(broken, null, Map.of()))
                .hasMessageStartingWith(broken + " is not a valid kubeconfig: while parsing a flow mapping")
                .hasMessageEndingWith("(at line 6, column 1)");

        Path other = file("values.yaml", "replicaCount: 2\n");
        assertThatThrownBy(() -> resolve(other, null, Map.of()))
                .hasMessage(other + " is not a kubeconfig: it defines no clusters and no contexts");
    }

    @Test
    void noCurrentContextNeedsContextAndAContextNeedsItsCluster() throws Exception {
        Path none = file("none", KUBECONFIG.replace("current-context: prod\n", ""));
        assertThatThrownBy(() -> resolve(none, null, Map.of()))
                .hasMessage(none + " has no current-context: pass --context (contexts: prod, staging)");

        Path dangling = file("dangling", KUBECONFIG.replace("context: {cluster: staging,", "context: {cluster: stage,"));
        assertThatThrownBy(() -> resolve(dangling, "staging", Map.of()))
                .hasMessage("context staging in " + dangling + " names cluster stage, which has no server there");
    }

    @Test
    void kubeconfigVariableListsFilesAndAtLeastOneMustExist() throws Exception {
        Path a = file("a", KUBECONFIG.replace("- name: staging\n  context:", "- name: qa\n  context:"));
        Path b = dir.resolve("b-missing");
        String variable = a + File.pathSeparator + b;

        assertThatThrownBy(() -> resolve(null, "staging", Map.of("KUBECONFIG", variable)))
                .hasMessage("--context staging: no such context in " + a + " (contexts: prod, qa)");
        assertThat(resolve(null, "qa", Map.of("KUBECONFIG", variable)).source()).isEqualTo("context qa of $KUBECONFIG (" + variable + ")");
        assertThatThrownBy(() -> resolve(null, null, Map.of("KUBECONFIG", b.toString())))
                .hasMessage("$KUBECONFIG names no file that exists (" + b + ")");
    }

    @Test
    void homeKubeconfigIsTheDefault() throws Exception {
        Files.createDirectories(dir.resolve("home/.kube"));
        Files.writeString(dir.resolve("home/.kube/config"), KUBECONFIG);

        assertThatThrownBy(() -> resolve(null, "stagign", Map.of())).hasMessageContaining("no such context in " + dir.resolve("home/.kube/config"));
        assertThat(resolve(null, "staging", Map.of()).server()).startsWith("https://staging.example:6443");
    }

    @Test
    void outsideAPodWithoutAnyKubeconfigThereIsNoClusterToConnectTo() throws Exception {
        assertThatThrownBy(() -> resolve(null, null, Map.of()))
                .hasMessageStartingWith("no cluster to connect to: no --kubeconfig, $KUBECONFIG is not set, " + dir.resolve("home/.kube/config")
                        + " does not exist, and this is not a pod");
        // a token without the service's address is not a pod either
        Path token = file("token", "t");
        assertThatThrownBy(() -> KubeConnection.resolve(null, null, Map.of(), dir.resolve("home"), token))
                .hasMessageStartingWith("no cluster to connect to");
    }

    @Test
    void inAPodTheServiceAccountIsUsedAndAContextIsAnError() throws Exception {
        Path token = file("token", "t");
        Map<String, String> pod = Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1");

        assertThatThrownBy(() -> KubeConnection.resolve(null, "prod", pod, dir.resolve("home"), token))
                .hasMessageStartingWith("--context prod: there is no kubeconfig to take it from");
        assertThat(KubeConnection.resolve(null, null, pod, dir.resolve("home"), token).source()).isEqualTo("the pod's service account");
    }

    /** Operators find the controller's requests in audit logs and API priority and fairness by its user agent. */
    @Test
    void everyRequestNamesTheControllerAndItsVersion(@TempDir Path dir) throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(false);
        server.init();
        try {
            server.expect().get().withPath("/api/v1/namespaces/shop/pods").andReturn(200, new PodListBuilder().build()).always();
            server.expect().get().withPath("/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods").andReturn(200, "{\"items\": []}").always();
            Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: mock
                      cluster: {server: "%s"}
                    contexts:
                    - name: mock
                      context: {cluster: mock, user: test}
                    current-context: mock
                    users:
                    - name: test
                      user: {token: test}
                    """.formatted(server.url("/").replaceAll("/$", "")));
            try (KubernetesClient client = KubeConnection.resolve(kubeconfig, null).connect(Duration.ofSeconds(5), 4)) {
                client.pods().inNamespace("shop").list();
                new KubeApi(client, Duration.ofSeconds(5)).get("/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods");
            }
            // run from classes, the build has no version in a manifest: "dev"
            String expected = "hpa-controller/" + ReleaseVersion.ofJar().orElse("dev");
            for (int i = 0; i < 2; i++) {
                RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
                assertThat(r.getHeader("User-Agent")).as(r.getPath()).isEqualTo(expected);
            }
            assertThat(expected).isEqualTo("hpa-controller/dev");
        } finally {
            server.destroy();
        }
    }
}
