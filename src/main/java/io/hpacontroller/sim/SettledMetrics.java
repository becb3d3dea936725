package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.PodSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics APIs and the pods of a simulated workload as they would be had every pod been Ready for long, each
 * serving an even share of a given demand (at most its capacity when {@code capped}), sampled at {@code now} with no
 * pipeline between: what {@link ScaleDelays} asks the core about. The metrics read the workload as
 * {@link SimulatedMetricsApis} does: CPU and served demand per pod, the whole demand for Object and External metrics.
 */
final class SettledMetrics implements MetricsSource, PodSource {

    private final SimulatedWorkload workload;
    private final long now;
    private final double resourceDemand;
    private final double customDemand;
    private final boolean capped;
    private final long windowMillis;

    /**
     * @param resourceDemand the demand the pods' CPU shows (Resource metrics)
     * @param customDemand   the demand the custom and external metrics show
     * @param windowMillis   the window each sample claims
     */
    SettledMetrics(SimulatedWorkload workload, long now, double resourceDemand, double customDemand, boolean capped, long windowMillis) {
        this.workload = workload;
        this.now = now;
        this.resourceDemand = resourceDemand;
        this.customDemand = customDemand;
        this.capped = capped;
        this.windowMillis = windowMillis;
    }

    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        return selector.matches(workload.labels()) ? workload.settledPodInfos() : List.of();
    }

    @Override
    public List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) {
        if (!podSelector.matches(workload.labels())) {
            return List.of();
        }
        double cpu = workload.settledCpuMilli(workload.share(resourceDemand, workload.podCount(), capped));
        List<PodUsage> out = new ArrayList<>();
        for (SimulatedPod p : workload.pods()) {
            out.add(new PodUsage(p.name, VirtualClock.epochMillis(now), windowMillis, workload.containerUsage(cpu)));
        }
        return out;
    }

    @Override
    public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) {
        Map<String, PodMetric> out = new LinkedHashMap<>();
        if (!podSelector.matches(workload.labels())) {
            return out;
        }
        long served = SimulatedMetricsApis.milli(workload.share(customDemand, workload.podCount(), capped));
        for (SimulatedPod p : workload.pods()) {
            out.put(p.name, new PodMetric(served, VirtualClock.epochMillis(now), windowMillis));
        }
        return out;
    }

    @Override
    public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) {
        return new ObjectMetricValue(SimulatedMetricsApis.milli(customDemand), VirtualClock.epochMillis(now));
    }

    @Override
    public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) {
        return new ExternalMetricValues(List.of(SimulatedMetricsApis.milli(customDemand)), VirtualClock.epochMillis(now));
    }
}
