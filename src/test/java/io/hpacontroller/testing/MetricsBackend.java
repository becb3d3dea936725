package io.hpacontroller.testing;

import io.hpacontroller.core.labels.Selector;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the three metrics APIs answer in a {@link MockCluster}: CPU and memory per pod
 * (metrics.k8s.io), per-pod and per-object custom metrics (custom.metrics.k8s.io) and external
 * metrics. Tests set values; the fake workload controller keeps per-pod usage in step with the pods.
 */
public final class MetricsBackend {

    /** A pod's usage as metrics-server would report it. */
    public record PodUsage(String namespace, String pod, Map<String, String> labels, String cpu, String memory, Instant timestamp) {
    }

    private final Map<String, PodUsage> pods = new ConcurrentHashMap<>();
    private final java.util.Set<String> silenced = ConcurrentHashMap.newKeySet();
    private final Map<String, String> podsMetricValues = new ConcurrentHashMap<>();
    private final Map<String, String> objectMetrics = new ConcurrentHashMap<>();
    private final Map<String, List<String>> externalMetrics = new ConcurrentHashMap<>();

    public void setPodUsage(String namespace, String pod, Map<String, String> labels, String cpu, String memory) {
        pods.put(namespace + "/" + pod, new PodUsage(namespace, pod, Map.copyOf(labels), cpu, memory, Instant.now()));
    }

    public void removePod(String namespace, String pod) {
        pods.remove(namespace + "/" + pod);
    }

    /** The pod stops reporting metrics (metrics-server has no sample for it), whatever is set for it. */
    public void silence(String namespace, String pod) {
        silenced.add(namespace + "/" + pod);
    }

    public List<PodUsage> podUsage(String namespace, Selector selector) {
        List<PodUsage> out = new ArrayList<>();
        for (PodUsage u : pods.values()) {
            if (u.namespace().equals(namespace) && selector.matches(u.labels()) && !silenced.contains(namespace + "/" + u.pod())) {
                out.add(u);
            }
        }
        return out;
    }

    /** The value every pod of the namespace reports for a custom per-pod metric. */
    public void setPodsMetric(String namespace, String metric, String value) {
        podsMetricValues.put(namespace + "/" + metric, value);
    }

    String podsMetric(String namespace, String metric) {
        return podsMetricValues.get(namespace + "/" + metric);
    }

    /** The value of a custom metric of one object, e.g. ("ns", "deployments.apps", "web", "qps"). */
    public void setObjectMetric(String namespace, String qualifiedResource, String name, String metric, String value) {
        objectMetrics.put(namespace + "/" + qualifiedResource + "/" + name + "/" + metric, value);
    }

    String objectMetric(String namespace, String qualifiedResource, String name, String metric) {
        return objectMetrics.get(namespace + "/" + qualifiedResource + "/" + name + "/" + metric);
    }

    public void setExternalMetric(String namespace, String metric, String... values) {
        externalMetrics.put(namespace + "/" + metric, List.of(values));
    }

    List<String> externalMetric(String namespace, String metric) {
        return externalMetrics.get(namespace + "/" + metric);
    }
}
