package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.hpacontroller.pods.PodFields;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ModelKindsTest {

    /** What kube-apiserver sends on a watch from a compacted resourceVersion (seen after an API server restart). */
    private static final String EXPIRED = """
            {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",\
            "message":"too old resource version: 906 (907)","reason":"Expired","code":410}}""";

    @Test
    void aWatchErrorIsReadAsAStatusSoThatTheInformerListsAnew() {
        WatchEvent event = ModelKinds.serialization().unmarshal(EXPIRED, WatchEvent.class);
        assertThat(event.getObject()).isInstanceOf(Status.class);
        assertThat(((Status) event.getObject()).getCode()).isEqualTo(410);
    }

    @Test
    void theWatchedKindsAreReadIntoTheirOwnClasses() {
        KubernetesResource pod = ModelKinds.serialization().unmarshal("""
                {"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n"}}""", KubernetesResource.class);
        assertThat(pod).isInstanceOf(PodFields.class);
    }
}
