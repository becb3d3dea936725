package io.hpacontroller.core.fakes;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.trace.DecisionTrace;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One HPA's world behind every port of the reconcile step, in memory, with switches for the failures
 * the tests need. Records what the core wrote (scale, status, events) and how often it read the scale.
 */
public final class FakeCluster implements ScaleClient, PodSource, MetricsSource, StatusWriter, EventRecorder {

    /** An event the core recorded. */
    public record Event(Type type, String reason, String message) {
    }

    // ---- the world ----
    public ScaleTarget scale = new ScaleTarget(3, 3, "app=web", "1");
    public List<PodInfo> pods = new ArrayList<>();
    public List<PodUsage> podUsage = new ArrayList<>();
    public final Map<String, Map<String, PodMetric>> podsMetrics = new HashMap<>();
    public final Map<String, ObjectMetricValue> objectMetrics = new HashMap<>();
    public final Map<String, List<Long>> externalMetrics = new HashMap<>();
    public long metricTimestamp;

    // ---- faults ----
    /** Thrown by every scale read. */
    public ApiException scaleReadError;
    /** Someone else writes the scale this many times, each just before the core's next write (which then conflicts). */
    public int scaleConflicts;
    /** Just before the core's next scale write, someone else scales the target to this count ({@code kubectl scale}). */
    public Integer scaledByOthersBeforeNextWrite;
    /** Thrown by every scale write (after the conflicts). */
    public ApiException scaleWriteError;
    /** Thrown by every status write. */
    public ApiException statusWriteError;
    /** What the status port says of another writer of the status. */
    public OtherStatusWriter otherWriter = OtherStatusWriter.UNKNOWN;
    /** Metric names (or resource names) whose fetch fails. */
    public final Set<String> failingMetrics = new HashSet<>();
    /** Thrown by every pod listing: a port that breaks in an unexpected way. */
    public RuntimeException podListBug;

    // ---- what the core did ----
    public int scaleReads;
    /** Calls to the metrics APIs, failed ones included. */
    public int metricReads;
    /** Calls to list pods. */
    public int podLists;
    public final List<Integer> scaleWrites = new ArrayList<>();
    public final List<String> resourceVersionsWritten = new ArrayList<>();
    public final List<HorizontalPodAutoscalerStatus> statusWrites = new ArrayList<>();
    /** The decision each status write came with, in the order of {@link #statusWrites}. */
    public final List<DecisionTrace> statusWriteDecisions = new ArrayList<>();
    public final List<Event> events = new ArrayList<>();
    /** Syncs that found the status as they would write it. */
    public int unchangedStatuses;

    /** A reconciler wired to this cluster. */
    public Reconciler reconciler(ControllerConfig config, HistoryStore histories, Clock clock) {
        return new Reconciler(config, Ports.of(this, SelectorOwnership.NONE), histories, clock);
    }

    public List<String> eventReasons() {
        return events.stream().map(Event::reason).toList();
    }

    public HorizontalPodAutoscalerStatus lastStatus() {
        return statusWrites.isEmpty() ? null : statusWrites.get(statusWrites.size() - 1);
    }

    @Override
    public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
        scaleReads++;
        if (scaleReadError != null) {
            throw scaleReadError;
        }
        return scale;
    }

    @Override
    public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException {
        if (scaledByOthersBeforeNextWrite != null) {
            scale = new ScaleTarget(scaledByOthersBeforeNextWrite, scale.statusReplicas(), scale.selector(), nextVersion());
            scaledByOthersBeforeNextWrite = null;
        } else if (scaleConflicts > 0) {
            scaleConflicts--;
            scale = new ScaleTarget(scale.specReplicas(), scale.statusReplicas(), scale.selector(), nextVersion());
        }
        // optimistic concurrency, as the API server: the write carries the resourceVersion it was computed from
        if (!Objects.equals(current.resourceVersion(), scale.resourceVersion())) {
            throw new ApiException.Conflict("Operation cannot be fulfilled on deployments.apps \"" + target.getName()
                    + "\": the object has been modified; please apply your changes to the latest version and try again");
        }
        if (scaleWriteError != null) {
            throw scaleWriteError;
        }
        resourceVersionsWritten.add(current.resourceVersion());
        scaleWrites.add(replicas);
        scale = new ScaleTarget(replicas, scale.statusReplicas(), scale.selector(), nextVersion());
    }

    private String nextVersion() {
        return String.valueOf(Integer.parseInt(scale.resourceVersion()) + 1);
    }

    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        podLists++;
        if (podListBug != null) {
            throw podListBug;
        }
        return pods;
    }

    private void failIfListed(String metric) throws ApiException {
        metricReads++;
        if (failingMetrics.contains(metric)) {
            throw new ApiException("the server is currently unable to handle the request (get " + metric + ")");
        }
    }

    @Override
    public List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) throws ApiException {
        failIfListed(resource);
        return podUsage;
    }

    @Override
    public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) throws ApiException {
        failIfListed(metricName);
        return podsMetrics.getOrDefault(metricName, Map.of());
    }

    @Override
    public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) throws ApiException {
        failIfListed(metricName);
        ObjectMetricValue v = objectMetrics.get(metricName);
        if (v == null) {
            throw new ApiException("the server could not find the metric " + metricName);
        }
        return v;
    }

    @Override
    public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) throws ApiException {
        failIfListed(metricName);
        return new ExternalMetricValues(externalMetrics.getOrDefault(metricName, List.of()), metricTimestamp);
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException {
        if (statusWriteError != null) {
            throw statusWriteError;
        }
        statusWrites.add(status);
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) throws ApiException {
        write(hpa, status);
        statusWriteDecisions.add(decided);
    }

    @Override
    public OtherStatusWriter otherWriter(HorizontalPodAutoscaler hpa) {
        return otherWriter;
    }

    @Override
    public void unchanged(HorizontalPodAutoscaler hpa) {
        unchangedStatuses++;
    }

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        events.add(new Event(type, reason, message));
    }
}
