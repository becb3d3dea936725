package io.hpacontroller.core.cadence;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * What the syncs taught of the metrics pipelines, fed from their decision traces (the samples' timestamps each sync read
 * anyway: no query of its own). A pipeline is the backend of a metrics API group: Resource and ContainerResource metrics
 * come from metrics.k8s.io (metrics-server), Pods and Object metrics from custom.metrics.k8s.io, External ones from
 * external.metrics.k8s.io; two groups served by the same backend (one adapter for custom and external metrics) are one
 * pipeline when the driver names the backend ({@code backends}), else each group is its own.
 *
 * <p>Each HPA learns on its own ({@link SampleCadence} per HPA, fed with the newest timestamp its metrics of its pipeline
 * read): the kubelet stamps each pod's sample at a time of its own, so one scrape of metrics-server carries timestamps
 * seconds apart, and the steps between the newest timestamps different HPAs read are no interval of the pipeline (issue
 * 40: one estimator per pipeline learned a 3 s "interval" from them). An HPA's own pods keep their stamps' phase, so its
 * syncs, once a period, bisect its age.
 */
public final class MetricsPipelines {

    public static final String RESOURCE = "metrics.k8s.io";
    public static final String CUSTOM = "custom.metrics.k8s.io";
    public static final String EXTERNAL = "external.metrics.k8s.io";

    /** What one HPA learned: of the pipeline its syncs follow. */
    private record Learned(String pipeline, SampleCadence cadence) {
    }

    private volatile Map<String, String> backends;
    private final Map<HpaKey, Learned> learned = new ConcurrentHashMap<>();

    /** @param backends the backend serving each API group (its APIService's service, "namespace/name"); a group not in it is its own */
    public MetricsPipelines(Map<String, String> backends) {
        this.backends = Map.copyOf(backends);
    }

    /** The backends as read once the driver knows them (before the first sync, or an HPA learns its pipeline again). */
    public void servedBy(Map<String, String> backends) {
        this.backends = Map.copyOf(backends);
    }

    /** Each API group its own pipeline. */
    public MetricsPipelines() {
        this(Map.of());
    }

    /** The API group a metric of {@code type} is read from, null for an unknown type. */
    public static String groupOf(String type) {
        if (type == null) {
            return null;
        }
        return switch (type) {
            case "Resource", "ContainerResource" -> RESOURCE;
            case "Pods", "Object" -> CUSTOM;
            case "External" -> EXTERNAL;
            default -> null;
        };
    }

    /** The pipeline a metric of {@code type} is read through, null for an unknown type. */
    public String pipelineOf(String type) {
        String group = groupOf(type);
        return group == null ? null : backends.getOrDefault(group, group);
    }

    /**
     * Learns from the samples a sync of the HPA {@code key} read: the newest timestamp its metrics of its pipeline
     * ({@link #pipelineOf(DecisionTrace)}) read, at the sync's time. An HPA whose pipeline changed (its metrics were
     * edited) learns again. Returns that pipeline, null when the sync read none.
     */
    public String observe(HpaKey key, DecisionTrace trace) {
        String pipeline = pipelineOf(trace);
        if (pipeline == null || key == null) {
            return pipeline;
        }
        long newest = 0;
        for (MetricTrace m : trace.metrics()) {
            if (!m.failed() && pipeline.equals(pipelineOf(m.type()))) {
                newest = Math.max(newest, m.timestamp());
            }
        }
        if (newest > 0) {
            learned.compute(key, (k, l) -> l != null && l.pipeline().equals(pipeline) ? l : new Learned(pipeline, new SampleCadence()))
                    .cadence().observe(trace.time(), newest);
        }
        return pipeline;
    }

    /** The pipeline an HPA's syncs follow: its first metric's that reads one; null when none does. */
    public String pipelineOf(DecisionTrace trace) {
        if (trace == null || trace.metrics() == null) {
            return null;
        }
        for (MetricTrace m : trace.metrics()) {
            String pipeline = pipelineOf(m.type());
            if (pipeline != null) {
                return pipeline;
            }
        }
        return null;
    }

    /** What the HPA {@code key} learned of its pipeline as of {@code now}; empty when nothing (yet, or no more). */
    public Optional<SampleCadence.Estimate> estimate(HpaKey key, long now) {
        Learned l = key == null ? null : learned.get(key);
        return l == null ? Optional.empty() : l.cadence().estimate(now);
    }

    /** Forgets what the HPA {@code key} learned (it was deleted). */
    public void forget(HpaKey key) {
        learned.remove(key);
    }

    /** How many HPAs learn. */
    public int size() {
        return learned.size();
    }

    /**
     * Each pipeline's learned cadence as of {@code now}, for the learned-cadence gauges: the estimate of its median HPA
     * (by the age it syncs at) among those that learned something.
     */
    public void forEach(long now, BiConsumer<String, SampleCadence.Estimate> action) {
        Map<String, List<SampleCadence.Estimate>> byPipeline = new HashMap<>();
        learned.values().forEach(l -> l.cadence().estimate(now)
                .ifPresent(e -> byPipeline.computeIfAbsent(l.pipeline(), p -> new ArrayList<>()).add(e)));
        byPipeline.forEach((p, es) -> {
            es.sort(Comparator.comparingLong(SampleCadence.Estimate::syncAge));
            action.accept(p, es.get(es.size() / 2));
        });
    }
}
