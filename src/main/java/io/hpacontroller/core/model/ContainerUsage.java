package io.hpacontroller.core.model;

/**
 * A container's measured usage, as one entry of a PodMetrics' containers.
 *
 * @param name  container name
 * @param usage usage per resource (milli-values)
 */
public record ContainerUsage(String name, ResourceAmounts usage) {
}
