package io.hpacontroller.pods;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pod informers of a controller limited to namespaces list the pods of those namespaces: a namespaced install's
 * RBAC allows nothing more (the real node's shadow release with watchNamespaces never became Ready: its informer
 * listed /api/v1/pods, 403, because fabric8 took PodFields for a cluster-scoped kind).
 */
class PodFieldsTest {

    @Test
    void aNamespacedListAsksForThePodsOfThatNamespace() throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            server.expect().get().withPath("/api/v1/namespaces/shop/pods").andReturn(200, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[]}").always();
            assertThat(client.resources(PodFields.class, PodFields.Items.class).inNamespace("shop").list().getItems()).isEmpty();
            assertThat(server.getLastRequest().getPath()).isEqualTo("/api/v1/namespaces/shop/pods");
        } finally {
            server.destroy();
        }
    }
}
