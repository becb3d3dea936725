package io.hpacontroller.pods;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Pod's JSON leaves in {@link PodFields}; and: the pod informers of a controller limited to namespaces list the pods of those namespaces: a namespaced install's
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

    @Test
    void theMetadataNobodyReadsIsSkippedWhileReading() {
        PodFields pod = new KubernetesSerialization().unmarshal("""
                {"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"shop","resourceVersion":"7",
                 "labels":{"app":"web"},"annotations":{"note":"x"},"finalizers":["f"],
                 "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"u"}],
                 "managedFields":[{"manager":"kubelet","operation":"Update","fieldsType":"FieldsV1",
                   "fieldsV1":{"f:status":{"f:phase":{}}}}],"deletionTimestamp":"2026-11-28T08:00:00Z"},
                 "status":{"phase":"Running"}}""", PodFields.class);
        assertThat(pod.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(pod.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(pod.getMetadata().getOwnerReferences()).isNullOrEmpty();
        assertThat(pod.getMetadata().getFinalizers()).isNullOrEmpty();
        assertThat(pod.getMetadata().getName()).isEqualTo("web-1");
        assertThat(pod.getMetadata().getNamespace()).isEqualTo("shop");
        assertThat(pod.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(pod.getMetadata().getLabels()).containsExactly(java.util.Map.entry("app", "web"));
        assertThat(pod.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(pod.getStatus().phase()).isEqualTo("Running");
    }
}
