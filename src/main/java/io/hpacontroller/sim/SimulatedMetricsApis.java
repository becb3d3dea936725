package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricIdentifier;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.hpacontroller.core.memory.InMemoryCluster;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.port.MetricsSource.ObjectMetricValue;
import io.hpacontroller.sim.scenario.MetricsPipeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics APIs of a simulated cluster, fed into its {@link InMemoryCluster} from the workload's usage through the
 * scenario's {@link MetricsPipeline}s, for the metrics of the HPA's spec: metrics.k8s.io (metrics-server) from each
 * pod's CPU and memory; the custom metrics API with each pod's served demand for Pods metrics and the offered demand
 * for Object metrics; the external metrics API with the offered demand. A pod appears in a sample once it has run for
 * part of the sample's window; its window is then what it has run of it, as metrics-server reports young pods.
 */
final class SimulatedMetricsApis {

    private final SimulatedWorkload workload;
    private final MetricsPipeline resource;
    private final MetricsPipeline custom;
    private final VirtualClock clock;
    private final List<MetricSpec> specs;

    /** @param specs the HPA's metrics: the ones whose samples are fed */
    SimulatedMetricsApis(SimulatedWorkload workload, MetricsPipeline resource, MetricsPipeline custom, VirtualClock clock, List<MetricSpec> specs) {
        this.workload = workload;
        this.resource = resource;
        this.custom = custom;
        this.clock = clock;
        this.specs = specs;
    }

    /** Puts the samples the APIs serve at the clock's time into {@code world}. */
    void feed(InMemoryCluster world) {
        boolean usage = false;
        for (MetricSpec spec : specs) {
            String type = spec.getType() == null ? "" : spec.getType();
            switch (type) {
                case "Resource", "ContainerResource" -> usage = true;
                case "Pods" -> world.podsMetrics.put(name(spec.getPods() == null ? null : spec.getPods().getMetric()), podsMetric());
                case "Object" -> world.objectMetrics.put(name(spec.getObject() == null ? null : spec.getObject().getMetric()), objectMetric());
                case "External" -> {
                    String name = name(spec.getExternal() == null ? null : spec.getExternal().getMetric());
                    long end = custom.sampleEndAt(clock.now());
                    world.externalMetrics.put(name, List.of(offered(end)));
                    world.externalMetricTimes.put(name, VirtualClock.epochMillis(end));
                }
                default -> {
                }
            }
        }
        world.podUsage = usage ? podUsage() : List.of();
    }

    private static String name(MetricIdentifier metric) {
        return metric == null ? null : metric.getName();
    }

    private List<PodUsage> podUsage() {
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

    private Map<String, PodMetric> podsMetric() {
        Map<String, PodMetric> out = new LinkedHashMap<>();
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

    private ObjectMetricValue objectMetric() {
        long end = custom.sampleEndAt(clock.now());
        return new ObjectMetricValue(offered(end), VirtualClock.epochMillis(end));
    }

    /** The offered demand over the custom pipeline's window ending at {@code end}, in milli. */
    private long offered(long end) {
        return milli(workload.offered.average(end - custom.windowMillis(), end));
    }

    /** A demand in units as the milli-value the APIs carry. */
    static long milli(double units) {
        return Math.round(units * 1000);
    }
}
