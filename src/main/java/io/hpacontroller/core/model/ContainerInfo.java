package io.hpacontroller.core.model;

import java.util.Objects;

/**
 * A container of a pod and its resource requests.
 *
 * @param name     container name
 * @param requests resources.requests of the container
 */
public record ContainerInfo(String name, ResourceAmounts requests) {
    public ContainerInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(requests, "requests");
    }
}
