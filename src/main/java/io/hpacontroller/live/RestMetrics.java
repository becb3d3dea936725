package io.hpacontroller.live;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.core.reconcile.MetricsSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics APIs over REST: metrics.k8s.io/v1beta1 (PodMetrics by label selector),
 * custom.metrics.k8s.io/v1beta2 (per-pod metrics by selector, one object's metric) and
 * external.metrics.k8s.io/v1beta1 (by metric label selector). One request per call; a failure is
 * reported for the metric that asked, and the next sync asks again.
 */
public final class RestMetrics implements MetricsSource {

    static final long DEFAULT_WINDOW_MILLIS = 60_000L;
    private static final JsonFactory JSON = new JsonFactory();

    private final KubeApi api;
    private final ApiDiscovery discovery;

    public RestMetrics(KubeApi api, ApiDiscovery discovery) {
        this.api = api;
        this.discovery = discovery;
    }

    private static String query(String name, Selector selector) {
        return selector.isEverything() ? "" : name + "=" + KubeApi.encode(selector.toString());
    }

    private static String join(String... params) {
        StringBuilder sb = new StringBuilder();
        for (String p : params) {
            if (!p.isEmpty()) {
                sb.append(sb.length() == 0 ? '?' : '&').append(p);
            }
        }
        return sb.toString();
    }

    @Override
    public List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) throws ApiException {
        String body;
        try {
            body = api.get("/apis/metrics.k8s.io/v1beta1/namespaces/" + namespace + "/pods" + join(query("labelSelector", podSelector)));
        } catch (ApiException e) {
            throw new ApiException("unable to fetch metrics from resource metrics API: " + e.getMessage(), e);
        }
        try {
            return podUsages(body);
        } catch (IOException e) {
            throw new ApiException("unable to fetch metrics from resource metrics API: the answer is not a PodMetricsList: "
                    + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
    }

    /**
     * The samples of a PodMetricsList, read as a stream of tokens: neither fabric8's model (its deserializers took a
     * fifth of a sync's CPU) nor a tree. Only {@code items[].metadata.name}, {@code timestamp}, {@code window} and
     * {@code containers[].name} and {@code usage} are read; everything else is skipped. A field that is absent or
     * null reads as absent; one that is not a string reads as its JSON text ({@code ""} for an object or a list),
     * so that a usage that is not a quantity is left out as {@link Quantities#amountsOfText} says.
     */
    static List<PodUsage> podUsages(String body) throws IOException, ApiException {
        List<PodUsage> out = new ArrayList<>();
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return out;
            }
            Windows windows = new Windows();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("items") && value == JsonToken.START_ARRAY) {
                    out.clear();
                    while (more(p)) {
                        out.add(podUsage(p, windows));
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return out;
    }

    /** The last window text and its length: every sample of a list usually has the same window. */
    private static final class Windows {
        String text;
        long millis;

        long of(String window) throws ApiException {
            if (window == null) {
                return DEFAULT_WINDOW_MILLIS;
            }
            if (!window.equals(text)) {
                millis = window(window);
                text = window;
            }
            return millis;
        }
    }

    private static PodUsage podUsage(JsonParser p, Windows windows) throws IOException, ApiException {
        String name = null;
        String timestamp = null;
        String window = null;
        List<ContainerUsage> containers = new ArrayList<>();
        if (is(JsonToken.START_OBJECT, p, p.currentToken())) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "metadata" -> name = field(p, value, "name");
                    case "timestamp" -> timestamp = text(p, value, null);
                    case "window" -> window = text(p, value, null);
                    case "containers" -> {
                        containers.clear();
                        if (is(JsonToken.START_ARRAY, p, value)) {
                            while (more(p)) {
                                containers.add(containerUsage(p));
                            }
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        }
        return new PodUsage(name, KubeTime.parse(timestamp, 0), windows.of(window), containers);
    }

    private static ContainerUsage containerUsage(JsonParser p) throws IOException {
        String name = null;
        Map<String, String> usage = Map.of();
        if (is(JsonToken.START_OBJECT, p, p.currentToken())) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "name" -> name = text(p, value, null);
                    case "usage" -> {
                        if (is(JsonToken.START_OBJECT, p, value)) {
                            usage = usage(p);
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        }
        return new ContainerUsage(name, Quantities.amountsOfText(usage));
    }

    /** The usage object at the current token: resource name to the text of its value ("null" for null). */
    private static Map<String, String> usage(JsonParser p) throws IOException {
        Map<String, String> usage = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String resource = p.currentName();
            usage.put(resource, text(p, p.nextToken(), "null"));
        }
        return usage;
    }

    /** Whether the value at {@code token} starts with {@code start} (an object or a list, to be read); any other value is skipped. */
    private static boolean is(JsonToken start, JsonParser p, JsonToken token) throws IOException {
        if (token == start) {
            return true;
        }
        p.skipChildren();
        return false;
    }

    /** Whether the list being read has another element (the parser stops at the end of the text in any case). */
    private static boolean more(JsonParser p) throws IOException {
        JsonToken next = p.nextToken();
        return next != JsonToken.END_ARRAY && next != null;
    }

    /** The text of the value at {@code token} ({@code ifNull} for null, "" for an object or a list, which it skips). */
    private static String text(JsonParser p, JsonToken token, String ifNull) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return ifNull;
        }
        if (token.isStructStart()) {
            p.skipChildren();
            return "";
        }
        return p.getText();
    }

    /** The text of {@code name} in the object at {@code token} (null when absent or when this is not an object). */
    private static String field(JsonParser p, JsonToken token, String name) throws IOException {
        if (!is(JsonToken.START_OBJECT, p, token)) {
            return null;
        }
        String found = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals(name)) {
                found = text(p, value, null);
            } else {
                p.skipChildren();
            }
        }
        return found;
    }

    @Override
    public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) throws ApiException {
        JsonNode list;
        try {
            list = api.getJson("/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + namespace + "/pods/*/" + KubeApi.encode(metricName)
                    + join(query("labelSelector", podSelector), query("metricLabelSelector", metricSelector)));
        } catch (ApiException e) {
            throw new ApiException("unable to fetch metrics from custom metrics API: " + e.getMessage(), e);
        }
        Map<String, PodMetric> out = new HashMap<>();
        for (JsonNode item : list.path("items")) {
            long window = item.hasNonNull("windowSeconds") ? item.get("windowSeconds").asLong() * 1000L : DEFAULT_WINDOW_MILLIS;
            String pod = item.path("describedObject").path("name").asText();
            PodMetric previous = out.put(pod, new PodMetric(milli(item.path("value")), KubeTime.parse(item.path("timestamp").asText(null), 0), window));
            if (previous != null) {
                // pod names are unique in a namespace: two samples mean a broken API, and nothing says which is right
                throw new ApiException("the custom metrics API returned more than one sample of " + metricName + " for pod " + pod);
            }
        }
        return out;
    }

    @Override
    public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) throws ApiException {
        String path;
        String apiVersion = object.getApiVersion() == null ? "v1" : object.getApiVersion();
        if ("Namespace".equals(object.getKind()) && !apiVersion.contains("/")) {
            path = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + namespace + "/metrics/" + KubeApi.encode(metricName);
        } else {
            ApiDiscovery.Resource r = discovery.resolve(apiVersion, object.getKind());
            path = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + namespace + "/" + r.qualifiedName() + "/"
                    + KubeApi.encode(object.getName()) + "/" + KubeApi.encode(metricName);
        }
        JsonNode list;
        try {
            list = api.getJson(path + join(query("metricLabelSelector", metricSelector)));
        } catch (ApiException e) {
            throw new ApiException("unable to fetch metrics from custom metrics API: " + e.getMessage(), e);
        }
        JsonNode items = list.path("items");
        if (items.size() != 1) {
            // client-go's custom metrics client asks for one object's metric and takes nothing else
            throw new ApiException("unable to fetch metrics from custom metrics API: the custom metrics API server returned "
                    + items.size() + " results when we asked for exactly one");
        }
        JsonNode item = items.get(0);
        return new ObjectMetricValue(milli(item.path("value")), KubeTime.parse(item.path("timestamp").asText(null), 0));
    }

    @Override
    public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) throws ApiException {
        JsonNode list;
        try {
            list = api.getJson("/apis/external.metrics.k8s.io/v1beta1/namespaces/" + namespace + "/" + KubeApi.encode(metricName)
                    + join(query("labelSelector", metricSelector)));
        } catch (ApiException e) {
            throw new ApiException("unable to fetch metrics from external metrics API: " + e.getMessage(), e);
        }
        List<Long> values = new ArrayList<>();
        long timestamp = 0;
        for (JsonNode item : list.path("items")) {
            if (values.isEmpty()) {
                timestamp = KubeTime.parse(item.path("timestamp").asText(null), 0);
            }
            values.add(milli(item.path("value")));
        }
        return new ExternalMetricValues(values, timestamp);
    }

    private static long milli(JsonNode value) throws ApiException {
        try {
            return Quantities.milliValue(value.asText());
        } catch (IllegalArgumentException e) {
            throw new ApiException("the metrics API returned a value that is not a quantity: " + value);
        }
    }

    private static long window(String window) throws ApiException {
        try {
            return GoDuration.parse(window).toMillis();
        } catch (IllegalArgumentException e) {
            throw new ApiException("the resource metrics API returned a window that is not a duration: " + window);
        }
    }
}
