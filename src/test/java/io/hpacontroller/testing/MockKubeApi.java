package io.hpacontroller.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hpacontroller.api.KubeApi;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;

/**
 * fabric8's mock server in expectations mode, a client that does not retry and our {@link KubeApi} on it (2 s timeout),
 * fresh for each test: {@code @RegisterExtension final MockKubeApi mock = new MockKubeApi();}. fabric8's
 * {@code @EnableKubernetesMockClient} shares one server per class, whose expectations would then leak between tests.
 */
public final class MockKubeApi implements BeforeEachCallback, AfterEachCallback {

    private KubernetesMockServer server;
    private KubernetesClient client;
    private KubeApi api;

    @Override
    public void beforeEach(ExtensionContext context) {
        server = new KubernetesMockServer(false);
        server.init();
        client = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
        api = new KubeApi(client, Duration.ofSeconds(2));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        client.close();
        server.destroy();
    }

    public KubernetesMockServer server() {
        return server;
    }

    public KubernetesClient client() {
        return client;
    }

    public KubeApi api() {
        return api;
    }
}
