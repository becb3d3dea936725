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
     * Reads the target's scale where that costs no request (an informer's cache of its kind), else as {@link #get}:
     * for a selector that only counts (another HPA's, in the AmbiguousSelector check), never for a write.
     *
     * @return null when the synced cache of its kind holds no such target (it does not exist); read when it has not synced
     * @throws ApiException when the target, its kind or its scale subresource cannot be read
     */
    default ScaleTarget peek(String namespace, CrossVersionObjectReference target) throws ApiException {
        return get(namespace, target);
    }

    /**
     * The target's scale when the synced cache of an informer holds it; null otherwise (a kind without one, a cache not
     * synced yet, a target missing). Never a request: for a selector recorded ahead of a sync (which reads it again).
     */
    default ScaleTarget cachedOnly(String namespace, CrossVersionObjectReference target) {
        return null;
    }

    /**
     * Writes spec.replicas through the scale subresource.
     *
     * @param current the scale as last read (its resourceVersion guards the write)
     * @throws ApiException.Conflict when the scale changed since it was read
     * @throws ApiException          on any other failure
     */
    void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException;
}
