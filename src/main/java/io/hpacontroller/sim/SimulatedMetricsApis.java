package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.sim.scenario.MetricsPipeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics APIs of a simulated cluster, answering from the workload's usage through the scenario's
 * {@link MetricsPipeline}s: metrics.k8s.io (metrics-server) from each pod's CPU and memory; the custom
 * metrics API with each pod's served demand for Pods metrics and the offered demand for Object metrics;
 * the external metrics API with the offered demand. A pod appears in a sample once it has run for part of
 * the sample's window; its window is then what it has run of it, as metrics-server reports young pods.
 */
final class SimulatedMetricsApis implements MetricsSource {

    private final SimulatedWorkload workload;
    private final MetricsPipeline resource;
    private final MetricsPipeline custom;
    private final VirtualClock clock;

    SimulatedMetricsApis(SimulatedWorkload workload, MetricsPipeline resource, MetricsPipeline custom, VirtualClock clock) {
        this.workload = workload;
        this.resource = resource;
        this.custom = custom;
        this.clock = clock;
    }

    @Override
    public List<PodUsage> podUsage(String namespace, Selector podSelector, String resourceName) {
        if (!podSelector.matches(workload.labels())) {
            return List.of();
        }
        long end = resource.sampleEndAt(clock.now());
        List<PodUsage> out = new ArrayList<>();
        for (SimulatedPod p : workload.pods()) {
            long window = Math.min(resource.windowMillis(), end - p.startedAt);
            if (window <= 0) {
                continue;
            }
            double cpu = p.cpu.average(end - window, end);
            out.add(new PodUsage(p.name, VirtualClock.epochMillis(end), window, workload.containerUsage(cpu)));
        }
        return out;
    }

    @Override
    public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) {
        Map<String, PodMetric> out = new LinkedHashMap<>();
        if (!podSelector.matches(workload.labels())) {
            return out;
        }
        long end = custom.sampleEndAt(clock.now());
        for (SimulatedPod p : workload.pods()) {
            long window = Math.min(custom.windowMillis(), end - p.startedAt);
            if (window <= 0) {
                continue;
            }
            out.put(p.name, new PodMetric(milli(p.served.average(end - window, end)), VirtualClock.epochMillis(end), window));
        }
        return out;
    }

    @Override
    public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) {
        long end = custom.sampleEndAt(clock.now());
        return new ObjectMetricValue(milli(workload.offered.average(end - custom.windowMillis(), end)), VirtualClock.epochMillis(end));
    }

    @Override
    public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) {
        long end = custom.sampleEndAt(clock.now());
        return new ExternalMetricValues(List.of(milli(workload.offered.average(end - custom.windowMillis(), end))), VirtualClock.epochMillis(end));
    }

    /** A demand in units as the milli-value the APIs carry. */
    static long milli(double units) {
        return Math.round(units * 1000);
    }
}
