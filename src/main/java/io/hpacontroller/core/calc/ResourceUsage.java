package io.hpacontroller.core.calc;

import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

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
        boolean anyLeftOut = false;
        for (PodUsage pod : usage) {
            PodMetric sample = sample(pod, resource, container);
            // a pod left out takes a placeholder until the end, so that a second sample for it is noticed too
            if (out.put(pod.pod(), sample == null ? LEFT_OUT : sample) != null) {
                throw new CalculationException("the resource metrics API returned more than one sample for pod " + pod.pod()
                        + ": refusing to pick one");
            }
            anyLeftOut |= sample == null;
        }
        if (anyLeftOut) {
            out.values().removeIf(m -> m == LEFT_OUT);
        }
        return out;
    }

    private static final PodMetric LEFT_OUT = new PodMetric(0, 0, 0);

    /** The pod's sample, or null when the pod (or the named container) does not report the resource. */
    private static PodMetric sample(PodUsage pod, String resource, String container) throws CalculationException {
        if (!container.isEmpty()) {
            for (ContainerUsage c : pod.containers()) {
                if (c.name().equals(container)) {
                    OptionalLong v = c.usage().get(resource);
                    if (v.isEmpty()) {
                        return null;
                    }
                    Samples.requireNonNegative(v.getAsLong(), resource, c.name(), pod.pod());
                    return new PodMetric(v.getAsLong(), pod.timestamp(), pod.window());
                }
            }
            return null;
        }
        if (pod.containers().isEmpty()) {
            return null;
        }
        long sum = 0;
        for (ContainerUsage c : pod.containers()) {
            OptionalLong v = c.usage().get(resource);
            if (v.isEmpty()) {
                return null;
            }
            Samples.requireNonNegative(v.getAsLong(), resource, c.name(), pod.pod());
            sum = Arith.saturatedAdd(sum, v.getAsLong());
        }
        return new PodMetric(sum, pod.timestamp(), pod.window());
    }
}
