package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The JSON mapping of the watched kinds reads what a watch can send besides them. */
class ModelKindsTest {

    @Test
    void aWatchErrorEventsStatusIsReadAsAStatusSoTheInformerRelists() {
        KubernetesSerialization serialization = ModelKinds.serialization();
        // what kube-apiserver sends on a watch resumed from a compacted resourceVersion (after a restart)
        KubernetesResource object = serialization.unmarshal("""
                {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                 "message":"too old resource version: 1 (2)","reason":"Expired","code":410}""", KubernetesResource.class);

        assertThat(object).isInstanceOfSatisfying(Status.class, s -> assertThat(s.getCode()).isEqualTo(410));
    }
}
