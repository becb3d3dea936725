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
 */
public final class ResourceUsage {

    private ResourceUsage() {
    }

    public static Map<String, PodMetric> perPod(List<PodUsage> usage, String resource, String container) {
        Map<String, PodMetric> out = new HashMap<>(usage.size() * 2);
        for (PodUsage pod : usage) {
            if (!container.isEmpty()) {
                for (ContainerUsage c : pod.containers()) {
                    if (c.name().equals(container)) {
                        OptionalLong v = c.usage().get(resource);
                        if (v.isPresent()) {
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
                sum = Arith.saturatedAdd(sum, v.getAsLong());
            }
            if (!missing) {
                out.put(pod.pod(), new PodMetric(sum, pod.timestamp(), pod.window()));
            }
        }
        return out;
    }
}
