package io.hpacontroller.core.port;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;

/** Port: Kubernetes events about an HPA. Implementations de-duplicate repeats. */
public interface EventRecorder {

    /** Normal or Warning. */
    enum Type { Normal, Warning }

    void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message);
}
