package io.hpacontroller.core.model;

import java.util.List;

/**
 * One item of a metrics.k8s.io PodMetrics list: the usage of each container of a pod.
 *
 * @param pod        pod name
 * @param timestamp  epoch milliseconds of the sample
 * @param window     averaging window in milliseconds
 * @param containers usage per container
 */
public record PodUsage(String pod, long timestamp, long window, List<ContainerUsage> containers) {
}
