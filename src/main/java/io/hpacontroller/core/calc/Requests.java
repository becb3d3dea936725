package io.hpacontroller.core.calc;

import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.PodInfo;

import java.util.OptionalLong;

/**
 * The request of each pod for one resource, the denominator of a Utilization metric.
 *
 * <p>With a container named (ContainerResource) only that container's request counts. Otherwise, when
 * the pod sets pod-level requests ({@code spec.resources.requests}), those (see {@link #podLevel});
 * else the sum over the containers (regular and sidecar init containers), where a container without a
 * request for the resource makes the whole computation fail, as upstream does.
 */
final class Requests {

    private Requests() {
    }

    /** The pod's request for the resource (of the named container when {@code container} is not empty). */
    static long of(PodInfo pod, String container, String resource) throws CalculationException {
        if (container.isEmpty() && pod.podRequests() != null && !pod.podRequests().isEmpty()) {
            return podLevel(pod, resource);
        }
        return fromContainers(pod, container, resource);
    }

    /**
     * With pod-level requests set (KEP-2837), the pod's request for a resource is the pod-level one when
     * given, else the sum of the container requests that exist for it; a resource that neither sets is
     * an error.
     */
    private static long podLevel(PodInfo pod, String resource) throws CalculationException {
        OptionalLong podLevel = pod.podRequests().get(resource);
        if (podLevel.isPresent()) {
            return podLevel.getAsLong();
        }
        long sum = 0;
        boolean found = false;
        for (ContainerInfo c : pod.containers()) {
            OptionalLong r = c.requests().get(resource);
            if (r.isPresent()) {
                sum = Arith.saturatedAdd(sum, r.getAsLong());
                found = true;
            }
        }
        if (!found) {
            throw new CalculationException("missing pod-level request for " + resource + " in Pod " + pod.name());
        }
        return sum;
    }

    private static long fromContainers(PodInfo pod, String container, String resource) throws CalculationException {
        long request = 0;
        for (ContainerInfo c : pod.containers()) {
            if (container.isEmpty() || container.equals(c.name())) {
                OptionalLong r = c.requests().get(resource);
                if (r.isEmpty()) {
                    throw new CalculationException("missing request for " + resource + " in container " + c.name() + " of Pod " + pod.name());
                }
                request = Arith.saturatedAdd(request, r.getAsLong());
            }
            if (container.equals(c.name())) {
                return request;
            }
        }
        if (!container.isEmpty()) {
            throw new CalculationException("container " + container + " not found in Pod " + pod.name());
        }
        return request;
    }
}
