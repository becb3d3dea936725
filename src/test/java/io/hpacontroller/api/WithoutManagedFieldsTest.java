package io.hpacontroller.api;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WithoutManagedFieldsTest {

    @Test
    void keepsObjectsByNamespaceAndNameWithoutTheirManagedFields() {
        WithoutManagedFields<HorizontalPodAutoscaler> store = new WithoutManagedFields<>();
        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscalerBuilder().withNewMetadata().withNamespace("ns").withName("web")
                .withResourceVersion("7").addToLabels("app", "web")
                .addToManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").withOperation("Update").build())
                .endMetadata().withNewSpec().withMaxReplicas(5).endSpec().build();

        store.put(store.getKey(hpa), hpa);

        HorizontalPodAutoscaler kept = store.get("ns/web");
        assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(kept.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(kept.getSpec().getMaxReplicas()).isEqualTo(5);
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.keySet()).containsExactly("ns/web");
        assertThat(store.remove("ns/web")).isSameAs(kept);
        assertThat(store.size()).isZero();
    }
}
