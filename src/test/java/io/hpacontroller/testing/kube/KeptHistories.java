package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.hpacontroller.history.StoredHistory;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The recommendations an HPA's kept history ({@code --persist-history}) holds, as the API server stores them. */
public final class KeptHistories {

    private static final ResourceDefinitionContext HISTORIES = new ResourceDefinitionContext.Builder().withGroup(StoredHistory.GROUP)
            .withVersion(StoredHistory.VERSION).withKind(StoredHistory.KIND).withPlural(StoredHistory.PLURAL).withNamespaced(true).build();

    private KeptHistories() {
    }

    /** The kept recommendations ({@code replicas}, {@code time}), oldest first; none when there is no object. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> recommendations(KubernetesClient admin, String namespace, String hpa) {
        GenericKubernetesResource h = admin.genericKubernetesResources(HISTORIES).inNamespace(namespace).withName(hpa).get();
        if (h == null) {
            return List.of();
        }
        Map<String, Object> spec = (Map<String, Object>) h.getAdditionalProperties().get("spec");
        List<Map<String, Object>> recs = spec == null ? null : (List<Map<String, Object>>) spec.get("recommendations");
        return recs == null ? List.of() : recs;
    }

    /** The count of the run in progress (the latest recommendation); -1 when nothing is kept. */
    public static int runInProgress(KubernetesClient admin, String namespace, String hpa) {
        List<Map<String, Object>> recs = recommendations(admin, namespace, hpa);
        return recs.isEmpty() ? -1 : ((Number) recs.get(recs.size() - 1).get("replicas")).intValue();
    }

    /** When the latest kept recommendation above {@code replicas} was made (recommendations are kept unclamped, as upstream records them). */
    public static Instant lastAbove(KubernetesClient admin, String namespace, String hpa, int replicas) {
        return recommendations(admin, namespace, hpa).stream().filter(r -> ((Number) r.get("replicas")).intValue() > replicas)
                .map(r -> Instant.parse((String) r.get("time"))).max(Instant::compareTo).orElseThrow();
    }
}
