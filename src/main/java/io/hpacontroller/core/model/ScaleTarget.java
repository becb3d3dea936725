package io.hpacontroller.core.model;

/**
 * What the scale subresource of a target says.
 *
 * @param specReplicas    spec.replicas
 * @param statusReplicas  status.replicas
 * @param selector        status.selector (text form), may be null
 * @param resourceVersion resourceVersion to send back with an update, may be null
 */
public record ScaleTarget(int specReplicas, int statusReplicas, String selector, String resourceVersion) {
}
