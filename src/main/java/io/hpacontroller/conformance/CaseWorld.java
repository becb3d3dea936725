package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.trace.DecisionTrace;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The world a conformance case describes, behind the decision core's ports: the scale, the pods, the
 * metrics APIs (with the failures the case lists), and recorders for what the core writes.
 */
final class CaseWorld implements ScaleClient, PodSource, MetricsSource, StatusWriter, EventRecorder {

    private final long now;
    private final List<PodInfo> pods;
    private final JsonNode resourceMetrics;
    private final JsonNode podsMetrics;
    private final JsonNode objectMetrics;
    private final JsonNode externalMetrics;
    private final Set<String> metricErrors = new TreeSet<>();
    private ScaleTarget scale;

    final List<Integer> scaleWrites = new ArrayList<>();
    final List<HorizontalPodAutoscalerStatus> statusWrites = new ArrayList<>();
    /** The decision each status write came with, in the order of {@link #statusWrites}. */
    final List<DecisionTrace> statusDecisions = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();

    /** An event the core recorded. */
    private record Event(String reason, String message) {
    }

    CaseWorld(JsonNode c, long now) {
        this.now = now;
        this.pods = parsePods(c.path("pods"), now);
        this.resourceMetrics = c.path("resourceMetrics");
        this.podsMetrics = c.path("podsMetrics");
        this.objectMetrics = c.path("objectMetrics");
        this.externalMetrics = c.path("externalMetrics");
        c.path("metricErrors").forEach(n -> metricErrors.add(n.asText()));
        JsonNode s = c.path("scale");
        if (!s.isMissingNode() && !s.isNull()) {
            scale = new ScaleTarget(s.path("specReplicas").asInt(), s.path("statusReplicas").asInt(),
                    s.hasNonNull("selector") ? s.get("selector").asText() : null, "1");
        }
    }

    private long ago(JsonNode seconds) {
        return seconds == null || seconds.isNull() || seconds.isMissingNode() ? PodInfo.NO_TIME : now - seconds.asLong() * 1000L;
    }

    private List<PodInfo> parsePods(JsonNode list, long now) {
        List<PodInfo> out = new ArrayList<>();
        for (JsonNode p : list) {
            List<ContainerInfo> containers = new ArrayList<>();
            for (JsonNode c : p.path("containers")) {
                containers.add(new ContainerInfo(c.path("name").asText(), amounts(c.path("requests"))));
            }
            ResourceAmounts podRequests = p.hasNonNull("podRequests") ? amounts(p.get("podRequests")) : null;
            out.add(new PodInfo(p.path("name").asText(), PodPhase.parse(p.path("phase").asText(null)),
                    ReadyStatus.parse(p.hasNonNull("ready") ? p.get("ready").asText() : null),
                    ago(p.get("readyTransitionSecondsAgo")), ago(p.get("startedSecondsAgo")),
                    p.path("deleting").asBoolean(false), containers.toArray(new ContainerInfo[0]), podRequests));
        }
        return out;
    }

    static ResourceAmounts amounts(JsonNode node) {
        Map<String, Long> m = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), Quantities.milliValue(e.getValue().asText()));
        }
        return ResourceAmounts.of(m);
    }

    List<PodInfo> pods() {
        return pods;
    }

    // ---- ScaleClient ----

    @Override
    public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
        if (scale == null) {
            throw new ApiException.NotFound(target.getKind() + " \"" + target.getName() + "\" not found");
        }
        return scale;
    }

    @Override
    public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) {
        scaleWrites.add(replicas);
        scale = new ScaleTarget(replicas, scale.statusReplicas(), scale.selector(), scale.resourceVersion());
    }

    // ---- PodSource: the case's pods are the ones the selector matches ----

    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        return pods;
    }

    // ---- MetricsSource ----

    /**
     * A fetch the case lists in {@code metricErrors} fails as the REST adapters report a metrics API that is not
     * there (HTTP 404, as client-go words it): {@code api} names the API, {@code resource} what was asked for.
     */
    private void failIfListed(String metric, String api, String resource) throws ApiException {
        if (metricErrors.contains(metric)) {
            throw notThere(api, resource);
        }
    }

    private static ApiException notThere(String api, String resource) {
        return new ApiException("unable to fetch metrics from " + api + " metrics API: the server could not find the requested resource (get " + resource + ")");
    }

    @Override
    public List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) throws ApiException {
        failIfListed(resource, "resource", "pods.metrics.k8s.io");
        List<PodUsage> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = resourceMetrics.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode m = e.getValue();
            List<ContainerUsage> containers = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> cs = m.path("containers").fields(); cs.hasNext(); ) {
                Map.Entry<String, JsonNode> c = cs.next();
                containers.add(new ContainerUsage(c.getKey(), amounts(c.getValue())));
            }
            out.add(new PodUsage(e.getKey(), now - m.path("timestampSecondsAgo").asLong() * 1000L,
                    m.path("windowSeconds").asLong(60) * 1000L, containers));
        }
        return out;
    }

    @Override
    public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) throws ApiException {
        failIfListed(metricName, "custom", "pods.custom.metrics.k8s.io *");
        Map<String, PodMetric> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = podsMetrics.path(metricName).fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode m = e.getValue();
            out.put(e.getKey(), new PodMetric(Quantities.milliValue(m.path("value").asText()),
                    now - m.path("timestampSecondsAgo").asLong() * 1000L, m.path("windowSeconds").asLong(60) * 1000L));
        }
        return out;
    }

    @Override
    public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) throws ApiException {
        JsonNode m = objectMetrics.path(metricName);
        if (metricErrors.contains(metricName) || m.isMissingNode() || m.isNull()) {
            throw notThere("custom", resourceOf(object) + ".custom.metrics.k8s.io " + object.getName());
        }
        return new ObjectMetricValue(Quantities.milliValue(m.path("value").asText()), now - m.path("timestampSecondsAgo").asLong() * 1000L);
    }

    @Override
    public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) throws ApiException {
        failIfListed(metricName, "external", metricName + ".external.metrics.k8s.io");
        JsonNode m = externalMetrics.path(metricName);
        List<Long> values = new ArrayList<>();
        m.path("values").forEach(v -> values.add(Quantities.milliValue(v.asText())));
        return new ExternalMetricValues(values, now - m.path("timestampSecondsAgo").asLong() * 1000L);
    }

    /** The resource (plural, with its group) of a described object's kind, as API discovery would name it. */
    private static String resourceOf(CrossVersionObjectReference object) {
        String kind = object.getKind().toLowerCase(Locale.ROOT);
        String plural = kind.endsWith("s") ? kind + "es" : kind.endsWith("y") ? kind.substring(0, kind.length() - 1) + "ies" : kind + "s";
        String apiVersion = object.getApiVersion() == null ? "" : object.getApiVersion();
        return apiVersion.contains("/") ? plural + "." + apiVersion.substring(0, apiVersion.indexOf('/')) : plural;
    }

    // ---- StatusWriter and EventRecorder ----

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) {
        statusWrites.add(status);
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) {
        write(hpa, status);
        statusDecisions.add(decided);
    }

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        events.add(new Event(reason, message));
    }

    /** The reasons of the events recorded, in order. */
    List<String> eventReasons() {
        return events.stream().map(Event::reason).toList();
    }

    /** The messages of the events recorded with this reason, in order. */
    List<String> eventMessages(String reason) {
        return events.stream().filter(e -> e.reason().equals(reason)).map(Event::message).toList();
    }
}
