package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.hpacontroller.core.controls.MirrorControlFields;

/**
 * A HorizontalPodAutoscaler of the mirror API ({@code autoscaling.hpa-controller.io/v1}): autoscaling/v2's
 * spec, autoscaling/v2's status plus the printer columns' summary ({@link MirrorHpaStatus}). Fields a later
 * version of the mirror adds beyond autoscaling/v2 (the per-HPA controls: {@code spec.mode}, {@code spec.fallback},
 * {@code spec.behavior.syncPeriodSeconds}, ...) stay in the model's additional properties and are read by the core
 * ({@link MirrorControlFields}).
 */
@Group(MirrorControlFields.GROUP)
@Version("v1")
@Kind("HorizontalPodAutoscaler")
@Plural("horizontalpodautoscalers")
public final class MirrorHpa extends CustomResource<HorizontalPodAutoscalerSpec, MirrorHpaStatus> implements Namespaced {

    /** The HPA as the core sees it: an autoscaling/v2 object whose apiVersion names the mirror API. */
    public HorizontalPodAutoscaler toCore() {
        return new HorizontalPodAutoscaler(HpaApi.MIRROR.apiVersion(), "HorizontalPodAutoscaler", getMetadata(), getSpec(), getStatus());
    }

    /** A mirror HPA with this metadata and spec and a status built from autoscaling/v2's. */
    static MirrorHpa of(HorizontalPodAutoscaler hpa, MirrorHpaStatus status) {
        MirrorHpa m = new MirrorHpa();
        m.setMetadata(hpa.getMetadata());
        m.setSpec(hpa.getSpec());
        m.setStatus(status);
        return m;
    }
}
