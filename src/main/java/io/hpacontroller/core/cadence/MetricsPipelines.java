package io.hpacontroller.core.cadence;

import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * One {@link SampleCadence} per metrics pipeline, fed from the decision traces of the syncs (the samples' timestamps
 * each sync read anyway: no query of its own). A pipeline is the backend of a metrics API group: Resource and
 * ContainerResource metrics come from metrics.k8s.io (metrics-server), Pods and Object metrics from
 * custom.metrics.k8s.io, External ones from external.metrics.k8s.io; two groups served by the same backend (one
 * adapter for custom and external metrics) are one pipeline when the driver names the backend ({@code backends}),
 * else each group is its own.
 */
public final class MetricsPipelines {

    public static final String RESOURCE = "metrics.k8s.io";
    public static final String CUSTOM = "custom.metrics.k8s.io";
    public static final String EXTERNAL = "external.metrics.k8s.io";

    private final Map<String, String> backends;
    private final Map<String, SampleCadence> cadences = new ConcurrentHashMap<>();

    /** @param backends the backend serving each API group (its APIService's service, "namespace/name"); a group not in it is its own */
    public MetricsPipelines(Map<String, String> backends) {
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

    /** Learns from the samples a sync read: each metric that read one, at the sync's time. */
    public void observe(DecisionTrace trace) {
        if (trace == null || trace.metrics() == null) {
            return;
        }
        for (MetricTrace m : trace.metrics()) {
            String pipeline = m.failed() ? null : pipelineOf(m.type());
            if (pipeline != null && m.timestamp() > 0) {
                cadences.computeIfAbsent(pipeline, p -> new SampleCadence()).observe(trace.time(), m.timestamp());
            }
        }
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

    /** What is learned of {@code pipeline} as of {@code now}; empty when nothing (yet, or no more). */
    public Optional<SampleCadence.Estimate> estimate(String pipeline, long now) {
        SampleCadence c = pipeline == null ? null : cadences.get(pipeline);
        return c == null ? Optional.empty() : c.estimate(now);
    }

    /** Each pipeline's estimate as of {@code now} (for the learned-cadence gauge). */
    public void forEach(long now, BiConsumer<String, SampleCadence.Estimate> action) {
        cadences.forEach((p, c) -> c.estimate(now).ifPresent(e -> action.accept(p, e)));
    }
}
