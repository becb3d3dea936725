package io.hpacontroller.core;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The one codec of HPA keys: written by {@link HpaKey#of}, read by the others. */
class HpaKeyTest {

    private static HorizontalPodAutoscaler hpa(String apiVersion) {
        return new HorizontalPodAutoscalerBuilder().withApiVersion(apiVersion).withNewMetadata().withNamespace("shop").withName("web").endMetadata().build();
    }

    @Test
    void anAutoscalingKeyIsNamespaceAndNameAnotherGroupsCarriesItsGroup() {
        assertThat(HpaKey.of(hpa("autoscaling/v2"))).hasToString("shop/web").isEqualTo(HpaKey.of("autoscaling", "shop", "web"));
        assertThat(HpaKey.of(hpa(null))).hasToString("shop/web");
        assertThat(HpaKey.of(hpa("autoscaling.hpa-controller.io/v1"))).hasToString("autoscaling.hpa-controller.io/shop/web");
    }

    @Test
    void eachPartIsReadBackFromTheKey() {
        for (String group : new String[] {"autoscaling", "autoscaling.hpa-controller.io"}) {
            String key = HpaKey.of(group, "shop", "web").toString();
            assertThat(HpaKey.parse(key)).isEqualTo(HpaKey.of(group, "shop", "web"));
            assertThat(HpaKey.group(key)).isEqualTo(group);
            assertThat(HpaKey.namespacedName(key)).isEqualTo("shop/web");
            assertThat(HpaKey.namespace(key)).isEqualTo("shop");
            assertThat(HpaKey.name(key)).isEqualTo("web");
            assertThat(HpaKey.isKey(key)).isTrue();
        }
        assertThat(HpaKey.isKey("web")).isFalse();
        assertThat(HpaKey.isKey("shop/")).isFalse();
        assertThat(HpaKey.isKey("a/b/c/d")).isFalse();
        assertThat(HpaKey.isKey("autoscaling/shop/web")).as("autoscaling's keys carry no group").isFalse();
    }

    /**
     * The ring's and the handover's hash of a key is {@link StableHash#of} its wire form, built or not, and never changes
     * between releases (replicas of two versions must agree): the values are FNV-1a and SplitMix64 of the UTF-8 bytes.
     */
    @Test
    void aKeysStableHashIsTheHashOfItsWireForm() {
        HpaKey builtin = HpaKey.of("autoscaling", "shop", "web");
        HpaKey mirror = HpaKey.of("autoscaling.hpa-controller.io", "shop", "web");
        HpaKey unicode = HpaKey.of("autoscaling", "sh\u00f6p", "w\u00e9b\u20ac\ud83d\ude00");
        assertThat(builtin.stableHash()).isEqualTo(StableHash.of("shop/web")).isEqualTo(-4838084739226519877L);
        assertThat(mirror.stableHash()).isEqualTo(StableHash.of(mirror.toString())).isEqualTo(-6422909824263839539L);
        assertThat(unicode.stableHash()).isEqualTo(StableHash.of(unicode.toString())).isEqualTo(6288463872069351720L);
        assertThat(StableHash.fnv1a(StableHash.fnv1a("sh\u00f6p/"), "w\u00e9b")).isEqualTo(StableHash.fnv1a("sh\u00f6p/w\u00e9b"));
    }

    /** The order of the wire forms, whichever way a comparison is made ('-' and '.' sort before '/'). */
    @Test
    void keysSortByTheirWireForm() {
        java.util.List<HpaKey> keys = java.util.stream.Stream.of("a/web-2", "a/web", "a-b/web", "a.b/web", "a/web.1",
                "autoscaling.hpa-controller.io/a/web", "autoscaling.hpa-controller.io/a/b", "b/a").map(HpaKey::parse).toList();
        assertThat(keys.stream().sorted().map(HpaKey::toString).toList())
                .isEqualTo(keys.stream().map(HpaKey::toString).sorted().toList());
    }
}
