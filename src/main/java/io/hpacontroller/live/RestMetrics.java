package io.hpacontroller.live;

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
        JsonNode list;
        try {
            // read as a tree, not as fabric8's PodMetricsList: the model's deserializers took a fifth of a sync's CPU
            list = api.getJson("/apis/metrics.k8s.io/v1beta1/namespaces/" + namespace + "/pods" + join(query("labelSelector", podSelector)));
        } catch (ApiException e) {
            throw new ApiException("unable to fetch metrics from resource metrics API: " + e.getMessage(), e);
        }
        List<PodUsage> out = new ArrayList<>();
        String lastWindow = null;
        long lastWindowMillis = DEFAULT_WINDOW_MILLIS;
        for (JsonNode m : list.path("items")) {
            List<ContainerUsage> containers = new ArrayList<>();
            for (JsonNode c : m.path("containers")) {
                containers.add(new ContainerUsage(c.path("name").asText(null), amounts(c.path("usage"))));
            }
            String window = m.path("window").asText(null);
            if (window != null && !window.equals(lastWindow)) {
                lastWindowMillis = window(window);
                lastWindow = window;
            }
            out.add(new PodUsage(m.path("metadata").path("name").asText(null), KubeTime.parse(m.path("timestamp").asText(null), 0),
                    window == null ? DEFAULT_WINDOW_MILLIS : lastWindowMillis, containers));
        }
        return out;
    }

    /** A container's usage, by resource name. */
    private static ResourceAmounts amounts(JsonNode usage) {
        Map<String, String> texts = new HashMap<>();
        usage.fields().forEachRemaining(e -> texts.put(e.getKey(), e.getValue().asText()));
        return Quantities.amountsOfText(texts);
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
