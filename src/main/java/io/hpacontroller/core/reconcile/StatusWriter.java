package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;

/** Port: the HPA's status subresource. */
public interface StatusWriter {

    /**
     * Replaces the status of the HPA.
     *
     * @param hpa    the HPA as read (metadata identifies it)
     * @param status the new status
     */
    void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException;
}
