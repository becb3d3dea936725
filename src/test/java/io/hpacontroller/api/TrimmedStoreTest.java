package io.hpacontroller.api;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TrimmedStoreTest {

    @Test
    void keepsObjectsByNamespaceAndNameWithoutTheirManagedFieldsAndOtherToolsAnnotations() {
        TrimmedStore<HorizontalPodAutoscaler> store = new TrimmedStore<>("autoscaling.hpa-controller.io/");
        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscalerBuilder().withNewMetadata().withNamespace("ns").withName("web")
                .withResourceVersion("7").addToLabels("app", "web")
                .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{\"big\": \"" + "x".repeat(250_000) + "\"}")
                .addToAnnotations("autoscaling.hpa-controller.io/mode", "Preview").addToAnnotations("example.com/owner", "team-a")
                .addToManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").withOperation("Update").build())
                .endMetadata().withNewSpec().withMaxReplicas(5).endSpec().build();

        store.put(store.getKey(hpa), hpa);

        HorizontalPodAutoscaler kept = store.get("ns/web");
        assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(kept.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(kept.getMetadata().getAnnotations()).as("the controls only").containsOnlyKeys("autoscaling.hpa-controller.io/mode")
                .containsEntry("autoscaling.hpa-controller.io/mode", "Preview");
        assertThat(kept.getSpec().getMaxReplicas()).isEqualTo(5);
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.keySet()).containsExactly("ns/web");
        assertThat(store.remove("ns/web")).isSameAs(kept);
        assertThat(store.size()).isZero();
    }

    @Test
    void anObjectWithOnlyTheControlsAnnotationsKeepsThemAsTheyAre() {
        TrimmedStore<HorizontalPodAutoscaler> store = new TrimmedStore<>("autoscaling.hpa-controller.io/");
        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscalerBuilder().withNewMetadata().withNamespace("ns").withName("web")
                .addToAnnotations("autoscaling.hpa-controller.io/sync-period", "30s").endMetadata().build();
        var annotations = hpa.getMetadata().getAnnotations();

        store.put(store.getKey(hpa), hpa);

        assertThat(store.get("ns/web").getMetadata().getAnnotations()).isSameAs(annotations).containsOnlyKeys("autoscaling.hpa-controller.io/sync-period");
    }

    @Test
    void withoutAKeptPrefixEveryAnnotationStays() {
        TrimmedStore<HorizontalPodAutoscaler> store = new TrimmedStore<>(null);
        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscalerBuilder().withNewMetadata().withNamespace("ns").withName("web")
                .addToAnnotations("example.com/owner", "team-a").endMetadata().build();

        store.put(store.getKey(hpa), hpa);

        assertThat(store.get("ns/web").getMetadata().getAnnotations()).containsOnlyKeys("example.com/owner");
    }
}
