package io.hpacontroller.core.port;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.model.ScaleTarget;

/** Port: the scale subresource of an HPA's target. */
public interface ScaleClient {

    /**
     * Reads the target's scale.
     *
     * @throws ApiException when the target, its kind or its scale subresource cannot be read
     */
    ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException;

    /**
     * Writes spec.replicas through the scale subresource.
     *
     * @param current the scale as last read (its resourceVersion guards the write)
     * @throws ApiException.Conflict when the scale changed since it was read
     * @throws ApiException          on any other failure
     */
    void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException;
}
