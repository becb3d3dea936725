package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.hpacontroller.live.KubeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class KubeConnectionTest {

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
            try (KubernetesClient client = KubeConnection.connect(kubeconfig, null, Duration.ofSeconds(5), 4)) {
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
