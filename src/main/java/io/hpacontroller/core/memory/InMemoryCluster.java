package io.hpacontroller.core.memory;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.trace.DecisionTrace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One HPA's cluster in memory, behind every port of a sync: the target's scale (its resourceVersion guards writes,
 * a stale one gets 409 as from the API server), the pods, the three metrics APIs (with the metrics whose fetch fails),
 * and recorders of what the core wrote (scale, status, events). Whoever builds it sets its state directly: the unit
 * tests ({@code FakeCluster}, which adds fault switches), the conformance runner (a case file's world) and the simulator
 * (its workload, fed in before each sync). The {@code protected} hooks are where a world differs: faults before a call,
 * and what a scale write does to a workload.
 */
public class InMemoryCluster implements ScaleClient, PodSource, MetricsSource, StatusWriter, EventRecorder {

    /** An event the core recorded. */
    public record Event(Type type, String reason, String message) {
    }

    /** The metrics API a read goes to. */
    public enum MetricsApi { RESOURCE, PODS, OBJECT, EXTERNAL }

    /**
     * One read of a metric.
     *
     * @param metric the metric's name (the resource's, "cpu", for {@link MetricsApi#RESOURCE})
     * @param object the described object of an {@link MetricsApi#OBJECT} read, else null
     */
    public record MetricRead(MetricsApi api, String metric, CrossVersionObjectReference object) {
    }

    // ---- the world ----
    /** The target's scale subresource; null: the target does not exist (404). */
    public ScaleTarget scale;
    /** The target's name: a read of another is 404; null: whatever the HPA names. */
    public String targetName;
    /** The pods (the ones the selector matches: a selector is not applied). */
    public List<PodInfo> pods = new ArrayList<>();
    /** metrics.k8s.io: the usage of the pods, whatever resource is asked for. */
    public List<PodUsage> podUsage = new ArrayList<>();
    /** custom.metrics.k8s.io: the Pods metrics by name, each by pod name. */
    public final Map<String, Map<String, PodMetric>> podsMetrics = new HashMap<>();
    /** custom.metrics.k8s.io: the Object metrics by name; a missing one is 404. */
    public final Map<String, ObjectMetricValue> objectMetrics = new HashMap<>();
    /** external.metrics.k8s.io: the values (milli) of the External metrics by name; a missing one has none. */
    public final Map<String, List<Long>> externalMetrics = new HashMap<>();
    /** The timestamp (epoch millis) of an External metric's values; {@link #metricTimestamp} when it has none here. */
    public final Map<String, Long> externalMetricTimes = new HashMap<>();
    /** The timestamp (epoch millis) of the External metrics that have none of their own. */
    public long metricTimestamp;
    /** Metric names (or resource names) whose fetch fails ({@link #metricFailure}). */
    public final Set<String> failingMetrics = new HashSet<>();

    // ---- what the core wrote ----
    public final List<Integer> scaleWrites = new ArrayList<>();
    /** The resourceVersion each scale write was guarded by, in the order of {@link #scaleWrites}. */
    public final List<String> resourceVersionsWritten = new ArrayList<>();
    public final List<HorizontalPodAutoscalerStatus> statusWrites = new ArrayList<>();
    /** The decision each status write came with, in the order of {@link #statusWrites}. */
    public final List<DecisionTrace> statusWriteDecisions = new ArrayList<>();
    public final List<Event> events = new ArrayList<>();

    public List<String> eventReasons() {
        return events.stream().map(Event::reason).toList();
    }

    /** The messages of the events recorded with this reason, in order. */
    public List<String> eventMessages(String reason) {
        return events.stream().filter(e -> e.reason().equals(reason)).map(Event::message).toList();
    }

    public HorizontalPodAutoscalerStatus lastStatus() {
        return statusWrites.isEmpty() ? null : statusWrites.get(statusWrites.size() - 1);
    }

    /** Forgets what the core wrote (a driver that syncs for long and has read it). */
    public void clearWrites() {
        scaleWrites.clear();
        resourceVersionsWritten.clear();
        statusWrites.clear();
        statusWriteDecisions.clear();
        events.clear();
    }

    /** Someone else writes spec.replicas ({@code kubectl scale}, another controller): a new resourceVersion. */
    public void scaledByOthers(int replicas) {
        scale = new ScaleTarget(replicas, scale.statusReplicas(), scale.selector(), nextVersion());
    }

    // ---- hooks ----

    /** Before every scale read: a fault throws. */
    protected void beforeScaleRead() throws ApiException {
    }

    /** Before every scale write, before its resourceVersion is checked: a fault throws, or {@link #scaledByOthers}. */
    protected void beforeScaleWrite() throws ApiException {
    }

    /** After a scale write the API server accepted: a driver applies it to its workload. */
    protected void scaleWritten(int replicas) {
    }

    /** Before every pod listing. */
    protected void beforePodList() {
    }

    /** Before every metrics read, failed ones included: a fault throws. */
    protected void beforeMetricRead(MetricRead read) throws ApiException {
    }

    /** Before every status write: a fault throws. */
    protected void beforeStatusWrite() throws ApiException {
    }

    /** What the read of one of the {@link #failingMetrics} throws: by default, as a read of what is {@linkplain #notThere not there}. */
    protected ApiException metricFailure(MetricRead read) {
        return notThere(read);
    }

    /** A metrics API, or a metric of it, that is not there (HTTP 404), as the REST adapters word it (client-go's text). */
    private static ApiException notThere(MetricRead read) {
        String api = switch (read.api()) {
            case RESOURCE -> "resource";
            case PODS, OBJECT -> "custom";
            case EXTERNAL -> "external";
        };
        String resource = switch (read.api()) {
            case RESOURCE -> "pods.metrics.k8s.io";
            case PODS -> "pods.custom.metrics.k8s.io *";
            case OBJECT -> resourceOf(read.object()) + ".custom.metrics.k8s.io " + read.object().getName();
            case EXTERNAL -> read.metric() + ".external.metrics.k8s.io";
        };
        return new ApiException("unable to fetch metrics from " + api + " metrics API: the server could not find the requested resource (get "
                + resource + ")");
    }

    /** The resource (plural, with its group) of a kind, as API discovery would name it. */
    private static String resourceOf(CrossVersionObjectReference object) {
        String kind = object.getKind().toLowerCase(Locale.ROOT);
        String plural = kind.endsWith("s") ? kind + "es" : kind.endsWith("y") ? kind.substring(0, kind.length() - 1) + "ies" : kind + "s";
        String apiVersion = object.getApiVersion() == null ? "" : object.getApiVersion();
        return apiVersion.contains("/") ? plural + "." + apiVersion.substring(0, apiVersion.indexOf('/')) : plural;
    }

    // ---- ScaleClient ----

    @Override
    public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
        beforeScaleRead();
        if (scale == null || targetName != null && !targetName.equals(target.getName())) {
            throw new ApiException.NotFound(target.getKind() + " \"" + target.getName() + "\" not found");
        }
        return scale;
    }

    @Override
    public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException {
        beforeScaleWrite();
        // optimistic concurrency, as the API server: the write carries the resourceVersion it was computed from
        if (!Objects.equals(current.resourceVersion(), scale.resourceVersion())) {
            throw new ApiException.Conflict("Operation cannot be fulfilled on " + resourceOf(target) + " \"" + target.getName()
                    + "\": the object has been modified; please apply your changes to the latest version and try again");
        }
        resourceVersionsWritten.add(current.resourceVersion());
        scaleWrites.add(replicas);
        scale = new ScaleTarget(replicas, scale.statusReplicas(), scale.selector(), nextVersion());
        scaleWritten(replicas);
    }

    private String nextVersion() {
        return String.valueOf(Long.parseLong(scale.resourceVersion()) + 1);
    }

    // ---- PodSource ----

    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        beforePodList();
        return pods;
    }

    // ---- MetricsSource ----

    private void read(MetricRead read) throws ApiException {
        beforeMetricRead(read);
        if (failingMetrics.contains(read.metric())) {
            throw metricFailure(read);
        }
    }

    @Override
    public List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) throws ApiException {
        read(new MetricRead(MetricsApi.RESOURCE, resource, null));
        return podUsage;
    }

    @Override
    public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) throws ApiException {
        read(new MetricRead(MetricsApi.PODS, metricName, null));
        return podsMetrics.getOrDefault(metricName, Map.of());
    }

    @Override
    public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) throws ApiException {
        MetricRead read = new MetricRead(MetricsApi.OBJECT, metricName, object);
        read(read);
        ObjectMetricValue v = objectMetrics.get(metricName);
        if (v == null) {
            throw notThere(read);
        }
        return v;
    }

    @Override
    public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) throws ApiException {
        read(new MetricRead(MetricsApi.EXTERNAL, metricName, null));
        return new ExternalMetricValues(externalMetrics.getOrDefault(metricName, List.of()),
                externalMetricTimes.getOrDefault(metricName, metricTimestamp));
    }

    // ---- StatusWriter and EventRecorder ----

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException {
        beforeStatusWrite();
        statusWrites.add(status);
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) throws ApiException {
        write(hpa, status);
        statusWriteDecisions.add(decided);
    }

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        events.add(new Event(type, reason, message));
    }
}
