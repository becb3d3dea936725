package io.hpacontroller.core.cadence;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;

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
 * <p>Each pipeline learns from all its HPAs' syncs ({@link SampleCadence}): a sync whose newest stamp (of the HPA's
 * metrics of the pipeline) differs from the one the HPA's previous sync read proves a scrape between the two syncs, and
 * not before the new stamp. Per HPA only its last sync is kept (the time and the stamp it read); per pipeline a bounded
 * window. A stamp in the future ({@value #FUTURE_SLACK_MILLIS} ms ahead of the sync) or one that goes back (by more
 * than {@value #MIN_STEP_MILLIS} ms) is ignored, and the HPA's source with it for {@value #QUARANTINE_MILLIS} ms: its
 * stamps are not a clock. A step under {@value #MIN_STEP_MILLIS} ms is no new sample.
 */
public final class MetricsPipelines {

    public static final String RESOURCE = "metrics.k8s.io";
    public static final String CUSTOM = "custom.metrics.k8s.io";
    public static final String EXTERNAL = "external.metrics.k8s.io";

    /** A stamp this far (ms) ahead of the sync is in the future. */
    static final long FUTURE_SLACK_MILLIS = 1000;
    /** Steps (ms) shorter than this are not a new sample; a step back longer than this is a step back. */
    static final long MIN_STEP_MILLIS = 1000;
    /** How long (ms) an HPA's source whose stamps went back or into the future is ignored. */
    static final long QUARANTINE_MILLIS = 120_000;

    /** An HPA's last sync: its pipeline, its time, the newest stamp it read; its source ignored until {@code ignoredUntil}. */
    private record Last(String pipeline, long at, long stamp, long ignoredUntil) {
    }

    private volatile Map<String, String> backends;
    private final Map<HpaKey, Last> last = new ConcurrentHashMap<>();
    private final Map<String, SampleCadence> cadences = new ConcurrentHashMap<>();

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
     * ({@link #pipelineOf(DecisionTrace)}) read, against its previous sync's. The sync started at the trace's time and
     * ended at {@code endedAt} (epoch ms): its metrics were read in between, so a new sample it read was readable by
     * {@code endedAt} (its start would bias the learned phase early by the read's latency, and the fresh syncs would come
     * just before the scrape they wait for). An HPA whose pipeline changed (its metrics were edited) starts again.
     * Returns that pipeline, null when the sync read none.
     */
    public String observe(HpaKey key, DecisionTrace trace, long endedAt) {
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
            observe(key, pipeline, trace.time(), Math.max(trace.time(), endedAt), newest);
        }
        return pipeline;
    }

    /**
     * A sync of {@code key} that started at {@code at} and had read its metrics by {@code readBy} read {@code stamp} as the
     * newest of {@code pipeline}'s samples: a new one proves a scrape after the previous sync's start and by {@code readBy}.
     */
    public void observe(HpaKey key, String pipeline, long at, long readBy, long stamp) {
        Last before = last.get(key);
        boolean same = before != null && before.pipeline().equals(pipeline);
        if (stamp > at + FUTURE_SLACK_MILLIS || same && stamp < before.stamp() - MIN_STEP_MILLIS) {
            last.put(key, new Last(pipeline, at, stamp, at + QUARANTINE_MILLIS)); // not a clock: ignored for a while
            return;
        }
        if (!same) {
            last.put(key, new Last(pipeline, at, stamp, Long.MIN_VALUE));
            return;
        }
        if (stamp - before.stamp() < MIN_STEP_MILLIS) { // no new sample since: the next one came after this sync
            last.put(key, new Last(pipeline, at, before.stamp(), before.ignoredUntil()));
            return;
        }
        if (at >= before.ignoredUntil()) {
            cadences.computeIfAbsent(pipeline, p -> new SampleCadence()).observe(Math.max(before.at(), stamp), readBy, stamp);
        }
        last.put(key, new Last(pipeline, at, stamp, before.ignoredUntil()));
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

    /** What the HPA {@code key}'s pipeline learned as of {@code now}; empty when nothing (yet, or no more). */
    public Optional<SampleCadence.Estimate> estimate(HpaKey key, long now) {
        return estimate(key, now, 0);
    }

    /** The same, with the HPA's period {@code periodMillis} as the interval to probe on while none agrees ({@link SampleCadence#estimate(long, long)}). */
    public Optional<SampleCadence.Estimate> estimate(HpaKey key, long now, long periodMillis) {
        Last l = key == null ? null : last.get(key);
        SampleCadence c = l == null ? null : cadences.get(l.pipeline());
        return c == null ? Optional.empty() : c.estimate(now, periodMillis);
    }

    /** Forgets the HPA {@code key}'s last sync (it was deleted); its pipeline keeps what it learned. */
    public void forget(HpaKey key) {
        last.remove(key);
    }

    /** How many HPAs are followed. */
    public int size() {
        return last.size();
    }

    /** How many times the pipelines' estimates were computed, in all (each at most once a second for each period asked with). */
    public long computations() {
        return cadences.values().stream().mapToLong(SampleCadence::computations).sum();
    }

    /** Each pipeline's learned cadence as of {@code now}, for the learned-cadence gauges. */
    public void forEach(long now, BiConsumer<String, SampleCadence.Estimate> action) {
        cadences.forEach((p, c) -> c.estimate(now).ifPresent(e -> action.accept(p, e)));
    }
}
