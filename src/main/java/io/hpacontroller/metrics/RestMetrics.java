package io.hpacontroller.metrics;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.api.ApiDiscovery;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.api.KubeTime;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.MetricsSource;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics APIs over REST: metrics.k8s.io/v1beta1 (PodMetrics by label selector),
 * custom.metrics.k8s.io/v1beta2 (per-pod metrics by selector, one object's metric) and
 * external.metrics.k8s.io/v1beta1 (by metric label selector). One request per call; a failure is
 * reported for the metric that asked, and the next sync asks again.
 *
 * <p>Every answer is read as a stream of JSON tokens as it arrives, never held whole, within {@link Limits}: at most
 * so many bytes and so many items, else the metric fails for that HPA alone (an adapter that answered 250,000 items,
 * 23 MB, took the whole heap before). Any answer that is not a list of the API's kind (not JSON, not an object,
 * items that are not a list, a value that is not a quantity) is an {@link ApiException}, so the metric fails as
 * when the API is down: a FailedGet*Metric condition and event, and a failure its fallback counts.
 *
 * <p>Each request ends within {@code --metrics-request-timeout}, answer read included, and goes through the
 * {@link SourceBulkhead} of its API: once an API is slow, at most {@code --metrics-max-inflight-per-source} of its
 * requests are in flight, and a fetch beyond them fails at once as a failed fetch, so a hanging adapter holds only that
 * many workers.
 */
public final class RestMetrics implements MetricsSource {

    static final long DEFAULT_WINDOW_MILLIS = 60_000L;
    /** The longest string value read from an answer (names, timestamps, quantities); longer ones are an invalid answer. */
    private static final int MAX_STRING = 64 * 1024;
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(MAX_STRING).build()).build();

    /**
     * The bounds on the metrics APIs: how much of one answer is read, how long one request may take, and how many
     * requests a slow API may have in flight.
     *
     * @param maxResponseBytes     {@code --metrics-max-response-bytes}
     * @param maxItems             {@code --metrics-max-items}: the items of one list (pods, objects, series)
     * @param requestTimeout       {@code --metrics-request-timeout}: one request, its answer read
     * @param maxInFlightPerSource {@code --metrics-max-inflight-per-source}: the requests in flight to one API once it is slow
     */
    public record Limits(long maxResponseBytes, int maxItems, Duration requestTimeout, int maxInFlightPerSource) {

        /**
         * 64 MiB and 50,000 items: beyond one workload's pods at Kubernetes' scalability thresholds, and what a
         * 128 MiB heap holds for five workers at once (the items kept are a few hundred bytes each; the bytes are
         * streamed). 10 s per request, as every other request of the controller; 2 requests in flight to a slow API,
         * so that with the 5 workers of the default a hanging API leaves 3 to the others.
         */
        public static final Limits DEFAULT = new Limits(64L * 1024 * 1024, 50_000, Duration.ofSeconds(10), 2);
        /** A request that takes longer than this (or half the timeout, when shorter) makes its API slow. */
        static final Duration SLOW_AFTER = Duration.ofSeconds(2);

        public Limits {
            if (maxResponseBytes < 1) {
                throw new IllegalArgumentException("--metrics-max-response-bytes must be at least 1, got " + maxResponseBytes);
            }
            if (maxItems < 1) {
                throw new IllegalArgumentException("--metrics-max-items must be at least 1, got " + maxItems);
            }
            if (requestTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("--metrics-request-timeout must be positive, got " + GoDuration.format(requestTimeout));
            }
            if (maxInFlightPerSource < 1) {
                throw new IllegalArgumentException("--metrics-max-inflight-per-source must be at least 1, got " + maxInFlightPerSource);
            }
        }

        /** These bounds on an answer, with the default timeout and bound on requests in flight. */
        public Limits(long maxResponseBytes, int maxItems) {
            this(maxResponseBytes, maxItems, DEFAULT.requestTimeout(), DEFAULT.maxInFlightPerSource());
        }

        /** How long a request takes before its API counts as slow: 2 s, or half the timeout when that is shorter. */
        Duration slowAfter() {
            Duration half = requestTimeout.dividedBy(2);
            return half.compareTo(SLOW_AFTER) < 0 ? half : SLOW_AFTER;
        }
    }

    private final KubeApi api;
    private final ApiDiscovery discovery;
    private final Limits limits;
    private final SourceBulkhead bulkhead;

    public RestMetrics(KubeApi api, ApiDiscovery discovery) {
        this(api, discovery, Limits.DEFAULT);
    }

    public RestMetrics(KubeApi api, ApiDiscovery discovery, Limits limits) {
        this.api = api.withTimeout(limits.requestTimeout());
        this.discovery = discovery;
        this.limits = limits;
        this.bulkhead = new SourceBulkhead(limits.maxInFlightPerSource(), limits.slowAfter());
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

    /**
     * Reads an answer of {@code apiName} (e.g. "resource metrics API") within the limits, through that API's bulkhead;
     * any failure names the API.
     */
    private <T> T read(String apiName, String path, AnswerReader<T> reader) throws ApiException {
        try (SourceBulkhead.Permit inFlight = bulkhead.enter(apiName)) {
            return api.getStreamed(path, limits.maxResponseBytes(), "--metrics-max-response-bytes", in -> {
                try (JsonParser p = JSON.createParser(in)) {
                    return reader.read(p, limits.maxItems());
                } catch (JsonProcessingException e) {
                    throw new ApiException("the answer is not valid JSON: " + e.getOriginalMessage(), e);
                }
            });
        } catch (ApiException e) {
            throw new ApiException("unable to fetch metrics from " + apiName + ": " + e.getMessage(), e);
        }
    }

    @FunctionalInterface
    private interface AnswerReader<T> {
        T read(JsonParser p, int maxItems) throws IOException, ApiException;
    }

    @Override
    public List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) throws ApiException {
        return read("resource metrics API", "/apis/metrics.k8s.io/v1beta1/namespaces/" + PathSegment.encode(namespace) + "/pods"
                + join(query("labelSelector", podSelector)), RestMetrics::podUsages);
    }

    /** {@link #podUsages(JsonParser, int)} of a whole answer, within the default limits. */
    static List<PodUsage> podUsages(String body) throws IOException, ApiException {
        try (JsonParser p = JSON.createParser(body)) {
            return podUsages(p, Limits.DEFAULT.maxItems());
        }
    }

    /**
     * The samples of a PodMetricsList, read as a stream of tokens: neither fabric8's model (its deserializers took a
     * fifth of a sync's CPU) nor a tree. Only {@code items[].metadata.name}, {@code timestamp}, {@code window} and
     * {@code containers[].name} and {@code usage} are read; everything else is skipped. A field that is absent or
     * null reads as absent; one that is not a string reads as its JSON text ({@code ""} for an object or a list),
     * so that a usage that is not a quantity is left out as {@link Quantities#amountsOfText} says.
     */
    static List<PodUsage> podUsages(JsonParser p, int maxItems) throws IOException, ApiException {
        List<PodUsage> out = new ArrayList<>();
        Windows windows = new Windows();
        items(p, "PodMetricsList", maxItems, out::clear, () -> out.add(podUsage(p, windows)));
        return out;
    }

    /** Reads one item at the parser's current token (the start of an object). */
    @FunctionalInterface
    private interface ItemReader {
        void read() throws IOException, ApiException;
    }

    /**
     * Walks a list answer ({@code kind}): a JSON object whose {@code items} is a list of objects, at most
     * {@code maxItems} of them, each given to {@code item}; every other field is skipped, and nothing may follow
     * the object. A second {@code items} replaces the first ({@code restart}), as Go's decoder does.
     */
    private static void items(JsonParser p, String kind, int maxItems, Runnable restart, ItemReader item) throws IOException, ApiException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw notA(kind, "it is not a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (!field.equals("items") || value == JsonToken.VALUE_NULL) {
                p.skipChildren();
                continue;
            }
            if (value != JsonToken.START_ARRAY) {
                throw notA(kind, "its items are not a list");
            }
            restart.run();
            int n = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (++n > maxItems) {
                    throw new ApiException("the answer has more than " + maxItems + " items (--metrics-max-items)");
                }
                if (p.currentToken() != JsonToken.START_OBJECT) {
                    throw notA(kind, "item " + (n - 1) + " is not an object");
                }
                item.read();
            }
        }
        if (p.nextToken() != null) {
            throw notA(kind, "text follows the object");
        }
    }

    private static ApiException notA(String kind, String why) {
        return new ApiException("the answer is not a " + kind + ": " + why);
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

    /** One item of a MetricValueList (custom metrics) or an ExternalMetricValueList: what is read of it. */
    private record MetricValue(String describedName, long value, long timestamp, long windowMillis) {
    }

    /**
     * The items of a MetricValueList or an ExternalMetricValueList: {@code describedObject.name}, {@code value} (a
     * quantity, required), {@code timestamp} and {@code windowSeconds}; everything else is skipped.
     */
    private static List<MetricValue> metricValues(JsonParser p, String kind, int maxItems) throws IOException, ApiException {
        List<MetricValue> out = new ArrayList<>();
        items(p, kind, maxItems, out::clear, () -> {
            String described = null;
            String value = null;
            String timestamp = null;
            long window = DEFAULT_WINDOW_MILLIS;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken token = p.nextToken();
                switch (field) {
                    case "describedObject" -> described = field(p, token, "name");
                    case "value" -> value = text(p, token, null);
                    case "timestamp" -> timestamp = text(p, token, null);
                    case "windowSeconds" -> {
                        if (token == JsonToken.VALUE_NUMBER_INT) {
                            window = p.getLongValue() * 1000L;
                        } else {
                            p.skipChildren();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            out.add(new MetricValue(described == null ? "" : described, milli(value), KubeTime.parse(timestamp, 0), window));
        });
        return out;
    }

    @Override
    public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) throws ApiException {
        List<MetricValue> list = read("custom metrics API", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + PathSegment.encode(namespace) + "/pods/*/"
                + PathSegment.encode(metricName) + join(query("labelSelector", podSelector), query("metricLabelSelector", metricSelector)),
                (p, max) -> metricValues(p, "MetricValueList", max));
        Map<String, PodMetric> out = new HashMap<>();
        for (MetricValue item : list) {
            PodMetric previous = out.put(item.describedName(), new PodMetric(item.value(), item.timestamp(), item.windowMillis()));
            if (previous != null) {
                // pod names are unique in a namespace: two samples mean a broken API, and nothing says which is right
                throw new ApiException("the custom metrics API returned more than one sample of " + metricName + " for pod " + item.describedName());
            }
        }
        return out;
    }

    @Override
    public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) throws ApiException {
        String path;
        String apiVersion = object.getApiVersion() == null ? "v1" : object.getApiVersion();
        if ("Namespace".equals(object.getKind()) && !apiVersion.contains("/")) {
            path = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + PathSegment.encode(namespace) + "/metrics/" + PathSegment.encode(metricName);
        } else {
            ApiDiscovery.Resource r = discovery.resolve(apiVersion, object.getKind());
            path = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + PathSegment.encode(namespace) + "/" + PathSegment.encode(r.qualifiedName())
                    + "/" + PathSegment.encode(object.getName()) + "/" + PathSegment.encode(metricName);
        }
        List<MetricValue> items = read("custom metrics API", path + join(query("metricLabelSelector", metricSelector)),
                (p, max) -> metricValues(p, "MetricValueList", max));
        if (items.size() != 1) {
            // client-go's custom metrics client asks for one object's metric and takes nothing else
            throw new ApiException("unable to fetch metrics from custom metrics API: the custom metrics API server returned "
                    + items.size() + " results when we asked for exactly one");
        }
        return new ObjectMetricValue(items.get(0).value(), items.get(0).timestamp());
    }

    @Override
    public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) throws ApiException {
        List<MetricValue> items = read("external metrics API", "/apis/external.metrics.k8s.io/v1beta1/namespaces/" + PathSegment.encode(namespace) + "/"
                + PathSegment.encode(metricName) + join(query("labelSelector", metricSelector)), (p, max) -> metricValues(p, "ExternalMetricValueList", max));
        List<Long> values = new ArrayList<>(items.size());
        for (MetricValue item : items) {
            values.add(item.value());
        }
        return new ExternalMetricValues(values, items.isEmpty() ? 0 : items.get(0).timestamp());
    }

    private static long milli(String value) throws ApiException {
        try {
            if (value == null) {
                throw new IllegalArgumentException("quantity is not set");
            }
            return Quantities.milliValue(value);
        } catch (IllegalArgumentException e) {
            throw new ApiException("the metrics API returned a value that is not a quantity: " + (value == null ? "null" : Quantities.shown(value)));
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
