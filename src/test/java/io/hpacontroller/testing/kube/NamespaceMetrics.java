package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.hpacontroller.core.labels.Selector;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the {@link FakeMetricsServer} answers for one namespace: pods' CPU and memory usage, Pods and
 * Object custom metrics, External metrics; per-API failures (an HTTP status or a raw text instead of an answer),
 * External answers of any size, answers that trickle and never end, per-API request counters and the times each
 * External metric was asked for. Values are Kubernetes quantities ("250m", "64Mi", "10").
 */
public final class NamespaceMetrics {

    record Usage(String cpu, String memory) {
    }

    private record UsageRule(Selector selector, Usage usage) {
    }

    private final String namespace;
    private final List<UsageRule> usageRules = new CopyOnWriteArrayList<>();
    private final Map<String, Usage> podUsage = new ConcurrentHashMap<>();
    private final Map<String, String> podsMetrics = new ConcurrentHashMap<>();
    private final Map<String, String> objectMetrics = new ConcurrentHashMap<>();
    private final Map<String, List<String>> externalMetrics = new ConcurrentHashMap<>();
    private final Map<FakeMetricsServer.Api, Integer> failures = new ConcurrentHashMap<>();
    private final Map<FakeMetricsServer.Api, String> rawAnswers = new ConcurrentHashMap<>();
    private final Map<String, Long> externalFloods = new ConcurrentHashMap<>();
    private final Map<FakeMetricsServer.Api, AtomicLong> requests = new ConcurrentHashMap<>();
    private final Set<FakeMetricsServer.Api> trickling = ConcurrentHashMap.newKeySet();
    private final Map<String, List<Instant>> externalRequests = new ConcurrentHashMap<>();

    NamespaceMetrics(String namespace) {
        this.namespace = namespace;
    }

    public String namespace() {
        return namespace;
    }

    /**
     * The usage of each container of every running pod whose labels the selector ("app=web") matches;
     * a later call for the same selector replaces the earlier one. Pods no rule matches have no sample.
     */
    public NamespaceMetrics podUsage(String labelSelector, String cpu, String memory) {
        Selector s = Selector.parse(labelSelector);
        usageRules.removeIf(r -> r.selector().toString().equals(s.toString()));
        usageRules.add(0, new UsageRule(s, new Usage(cpu, memory)));
        return this;
    }

    /** One pod's usage, over any rule. */
    public NamespaceMetrics podUsageOf(String pod, String cpu, String memory) {
        podUsage.put(pod, new Usage(cpu, memory));
        return this;
    }

    /** The value every pod reports for a custom per-pod metric (HPA type Pods). */
    public NamespaceMetrics podsMetric(String metric, String value) {
        podsMetrics.put(metric, value);
        return this;
    }

    /** A custom metric of one object (HPA type Object), e.g. ("deployments.apps", "web", "requests-per-second", "10"). */
    public NamespaceMetrics objectMetric(String qualifiedResource, String name, String metric, String value) {
        objectMetrics.put(qualifiedResource + "/" + name + "/" + metric, value);
        return this;
    }

    /** The values (one per series) of an External metric. */
    public NamespaceMetrics externalMetric(String metric, String... values) {
        externalMetrics.put(metric, List.of(values));
        return this;
    }

    /** Every request to this API for this namespace answers with the HTTP status (e.g. 500, 404) until {@link #heal}. */
    public NamespaceMetrics fail(FakeMetricsServer.Api api, int status) {
        failures.put(api, status);
        return this;
    }

    public NamespaceMetrics heal(FakeMetricsServer.Api api) {
        failures.remove(api);
        rawAnswers.remove(api);
        trickling.remove(api);
        return this;
    }

    /** Every request to this API for this namespace answers HTTP 200 with this text as JSON (e.g. "{not json") until {@link #heal}. */
    public NamespaceMetrics answerRaw(FakeMetricsServer.Api api, String body) {
        rawAnswers.put(api, body);
        return this;
    }

    /**
     * The External metric answers a list of about {@code bytes} bytes (items of value "1", about a hundred bytes each),
     * written as the client reads it: the server never holds it whole.
     */
    public NamespaceMetrics externalFlood(String metric, long bytes) {
        externalFloods.put(metric, bytes);
        return this;
    }

    /**
     * Every request to this API for this namespace is answered HTTP 200 and then a space a second, never ending, until
     * the client gives up (or {@link #heal}): an adapter that hangs.
     */
    public NamespaceMetrics trickle(FakeMetricsServer.Api api) {
        trickling.add(api);
        return this;
    }

    /** When each request for this External metric arrived, in order. */
    public List<Instant> externalRequests(String metric) {
        List<Instant> times = externalRequests.get(metric);
        return times == null ? List.of() : List.copyOf(times);
    }

    /** Requests this API received for this namespace (discovery not counted). */
    public long requests(FakeMetricsServer.Api api) {
        AtomicLong n = requests.get(api);
        return n == null ? 0 : n.get();
    }

    void count(FakeMetricsServer.Api api) {
        requests.computeIfAbsent(api, a -> new AtomicLong()).incrementAndGet();
    }

    boolean trickling(FakeMetricsServer.Api api) {
        return trickling.contains(api);
    }

    void recordExternal(String metric) {
        externalRequests.computeIfAbsent(metric, m -> new CopyOnWriteArrayList<>()).add(Instant.now());
    }

    Integer failure(FakeMetricsServer.Api api) {
        return failures.get(api);
    }

    String rawAnswer(FakeMetricsServer.Api api) {
        return rawAnswers.get(api);
    }

    Long externalFlood(String metric) {
        return externalFloods.get(metric);
    }

    Usage usage(Pod pod) {
        Usage own = podUsage.get(pod.getMetadata().getName());
        if (own != null) {
            return own;
        }
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        for (UsageRule r : usageRules) {
            if (r.selector().matches(labels)) {
                return r.usage();
            }
        }
        return null;
    }

    String podsMetric(String metric) {
        return podsMetrics.get(metric);
    }

    String objectMetric(String qualifiedResource, String name, String metric) {
        return objectMetrics.get(qualifiedResource + "/" + name + "/" + metric);
    }

    List<String> externalMetric(String metric) {
        return externalMetrics.get(metric);
    }
}
