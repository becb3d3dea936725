package io.hpacontroller.core.calc;

import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * From metrics.k8s.io PodMetrics to one value per pod, as upstream's resource metrics client does:
 * for a container, that container's usage (a pod that does not report the container is left out and
 * so counts as a pod with missing metrics); for the whole pod, the sum over its containers (a pod with
 * no containers, or with a container that lacks the resource, is left out).
 *
 * <p>Two kinds of answer are refused (the metric fails, see {@link Samples}): a negative usage, and
 * more than one sample for the same pod. Pod names are unique in a namespace, so a second sample means
 * the metrics API is broken; upstream silently keeps the last one, but nothing says which sample is
 * right, and deciding on either could scale the wrong way.
 */
public final class ResourceUsage {

    private ResourceUsage() {
    }

    /**
     * One sample per pod for a resource (and, when {@code container} is not empty, that container).
     *
     * @throws CalculationException when a usage is negative or a pod is listed twice
     */
    public static Map<String, PodMetric> perPod(List<PodUsage> usage, String resource, String container) throws CalculationException {
        Map<String, PodMetric> out = new HashMap<>(usage.size() * 2);
        Set<String> seen = new HashSet<>(usage.size() * 2);
        for (PodUsage pod : usage) {
            if (!seen.add(pod.pod())) {
                throw new CalculationException("the resource metrics API returned more than one sample for pod " + pod.pod()
                        + ": refusing to pick one");
            }
            if (!container.isEmpty()) {
                for (ContainerUsage c : pod.containers()) {
                    if (c.name().equals(container)) {
                        OptionalLong v = c.usage().get(resource);
                        if (v.isPresent()) {
                            Samples.requireNonNegative(v.getAsLong(), resource + " usage of container " + c.name() + " of pod " + pod.pod());
                            out.put(pod.pod(), new PodMetric(v.getAsLong(), pod.timestamp(), pod.window()));
                        }
                        break;
                    }
                }
                continue;
            }
            boolean missing = pod.containers().isEmpty();
            long sum = 0;
            for (ContainerUsage c : pod.containers()) {
                OptionalLong v = c.usage().get(resource);
                if (v.isEmpty()) {
                    missing = true;
                    break;
                }
                Samples.requireNonNegative(v.getAsLong(), resource + " usage of container " + c.name() + " of pod " + pod.pod());
                sum = Arith.saturatedAdd(sum, v.getAsLong());
            }
            if (!missing) {
                out.put(pod.pod(), new PodMetric(sum, pod.timestamp(), pod.window()));
            }
        }
        return out;
    }
}
