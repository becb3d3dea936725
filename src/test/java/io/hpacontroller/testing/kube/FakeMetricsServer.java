package io.hpacontroller.testing.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.testing.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.PemKeyCertOptions;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * metrics-server and a custom/external metrics adapter in one in-process HTTPS server (Vert.x, HTTP/1.1),
 * registered with kube-apiserver as the APIServices {@code v1beta1.metrics.k8s.io},
 * {@code v1beta2.custom.metrics.k8s.io}, {@code v1beta1.custom.metrics.k8s.io} and
 * {@code v1beta1.external.metrics.k8s.io}: clients reach it only through the API server's aggregation
 * proxy (authentication, RBAC, audit), as in a cluster.
 *
 * <p>What it answers is set per namespace ({@link NamespaceMetrics}), so tests sharing the server do not
 * see each other's values, failures or counters. Resource metrics cover the running pods of the
 * {@link Kubelet}; a sample's timestamp is the time of the request and its window one second, or, once
 * {@link #scrapeEvery} is set, the time of metrics-server's last scrape readable then. On a control
 * plane with real kubelets, resource metrics are what the kubelets measured ({@link ResourceMetrics}), and
 * the per-pod custom metrics cover the running pods the API server lists.
 */
public final class FakeMetricsServer implements AutoCloseable {

    /** The three metrics APIs. */
    public enum Api {
        RESOURCE("metrics.k8s.io"), CUSTOM("custom.metrics.k8s.io"), EXTERNAL("external.metrics.k8s.io");

        private final String group;

        Api(String group) {
            this.group = group;
        }

        public String group() {
            return group;
        }
    }

    static final String SERVICE = "fake-metrics";
    static final String SERVICE_NAMESPACE = "kube-system";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern POD_METRICS = Pattern.compile("^/apis/metrics\\.k8s\\.io/v1beta1/namespaces/([^/]+)/pods(?:/([^/]+))?$");
    private static final Pattern CUSTOM = Pattern.compile("^/apis/custom\\.metrics\\.k8s\\.io/(v1beta[12])/namespaces/([^/]+)/([^/]+)/([^/]+)(?:/([^/]+))?$");
    private static final Pattern EXTERNAL = Pattern.compile("^/apis/external\\.metrics\\.k8s\\.io/v1beta1/namespaces/([^/]+)/([^/]+)$");

    private final PodSource pods;
    private final ResourceMetrics resourceMetrics;
    private final Vertx vertx = Vertx.vertx();
    private final Map<String, NamespaceMetrics> namespaces = new ConcurrentHashMap<>();
    private final MetricsQueries podQueries = new MetricsQueries();
    private HttpServer server;
    private volatile Scrapes scrapes;

    /**
     * metrics-server's scrapes of the fake kubelet: a sample is stamped at {@code phase + k * resolution} (epoch time)
     * and becomes readable {@code readableAfter} later; until then the previous one is answered.
     */
    public record Scrapes(Duration resolution, Duration phase, Duration readableAfter) {

        /** The stamp of the newest sample readable at {@code now}. */
        Instant newestReadable(Instant now) {
            long r = resolution.toMillis();
            long stamp = Math.floorDiv(now.toEpochMilli() - readableAfter.toMillis() - phase.toMillis(), r) * r + phase.toMillis();
            return Instant.ofEpochMilli(stamp);
        }
    }

    /** @param resourceMetrics null: the values set per namespace, for the pods of {@code pods} */
    FakeMetricsServer(PodSource pods, ResourceMetrics resourceMetrics) {
        this.pods = pods;
        this.resourceMetrics = resourceMetrics;
    }

    /** Starts serving on a free loopback port with this certificate; returns the port. */
    int start(Pki.Issued serving) {
        HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
                .setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(serving.certPem())).setKeyValue(Buffer.buffer(serving.keyPem())));
        try {
            server = vertx.createHttpServer(options).requestHandler(this::handle).listen().toCompletionStage().toCompletableFuture()
                    .get(Waits.STATE.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the fake metrics server did not start", e);
        }
        return server.actualPort();
    }

    /** Every pod-metrics query of metrics.k8s.io answered so far (all namespaces). */
    public MetricsQueries podQueries() {
        return podQueries;
    }

    /** From now on, the fake kubelet's resource metrics are stamped as metrics-server's {@code scrapes} would stamp them. */
    public void scrapeEvery(Scrapes scrapes) {
        this.scrapes = scrapes;
    }

    /** What the metrics APIs answer for one namespace. */
    public NamespaceMetrics in(String namespace) {
        return namespaces.computeIfAbsent(namespace, NamespaceMetrics::new);
    }

    private void handle(HttpServerRequest request) {
        String path = URLDecoder.decode(request.path().replace("+", "%2B"), StandardCharsets.UTF_8); // "*" may come as %2A
        Map<String, String> query = query(request.query());
        try {
            ObjectNode discovery = discovery(path);
            if (discovery != null) {
                reply(request, 200, discovery);
                return;
            }
            Matcher m = POD_METRICS.matcher(path);
            if (m.matches()) {
                Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
                Scrapes s = resourceMetrics == null ? scrapes : null;
                Instant sampled = s == null ? now : s.newestReadable(now);
                podQueries.record(m.group(1), query.getOrDefault("labelSelector", ""), s == null ? null : Duration.between(sampled, now));
                answer(request, Api.RESOURCE, m.group(1), ns -> podMetrics(ns, m.group(2), Selector.parse(query.getOrDefault("labelSelector", "")),
                        sampled, s == null ? Duration.ofSeconds(1) : s.resolution()));
                return;
            }
            Matcher c = CUSTOM.matcher(path);
            if (c.matches()) {
                answer(request, Api.CUSTOM, c.group(2), ns -> custom(ns, c.group(1), c.group(3), c.group(4), c.group(5),
                        Selector.parse(query.getOrDefault("labelSelector", ""))));
                return;
            }
            Matcher x = EXTERNAL.matcher(path);
            if (x.matches()) {
                in(x.group(1)).recordExternal(x.group(2));
                Long flood = in(x.group(1)).externalFlood(x.group(2));
                if (flood != null && in(x.group(1)).failure(Api.EXTERNAL) == null) {
                    in(x.group(1)).count(Api.EXTERNAL);
                    flood(request, x.group(2), flood);
                    return;
                }
                answer(request, Api.EXTERNAL, x.group(1), ns -> external(ns, x.group(2)));
                return;
            }
            if (path.equals("/apis/metrics.k8s.io/v1beta1/nodes")) {
                reply(request, 200, list("metrics.k8s.io/v1beta1", "NodeMetricsList"));
                return;
            }
            reply(request, 404, status(404, "the server could not find the requested resource"));
        } catch (RuntimeException e) {
            reply(request, 500, status(500, "fake metrics server: " + e));
        }
    }

    private interface Answer {
        ObjectNode body(NamespaceMetrics ns) throws NotFound;
    }

    private static final class NotFound extends Exception {
        NotFound(String message) {
            super(message);
        }
    }

    private void answer(HttpServerRequest request, Api api, String namespace, Answer answer) {
        NamespaceMetrics ns = in(namespace);
        ns.count(api);
        Integer failure = ns.failure(api);
        if (failure != null) {
            reply(request, failure, status(failure, "injected failure of " + api.group()));
            return;
        }
        if (ns.trickling(api)) {
            trickle(request);
            return;
        }
        String raw = ns.rawAnswer(api);
        if (raw != null) {
            request.response().setStatusCode(200).putHeader("Content-Type", "application/json").end(raw);
            return;
        }
        try {
            reply(request, 200, answer.body(ns));
        } catch (NotFound e) {
            reply(request, 404, status(404, e.getMessage()));
        }
    }

    private ObjectNode podMetrics(NamespaceMetrics ns, String podName, Selector selector, Instant sampled, Duration window) throws NotFound {
        ObjectNode list = list("metrics.k8s.io/v1beta1", "PodMetricsList");
        ArrayNode items = (ArrayNode) list.get("items");
        String now = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
        for (ResourceMetrics.PodSample sample : samples(ns, selector, sampled, window)) {
            if (podName != null && !podName.equals(sample.name())) {
                continue;
            }
            ObjectNode item = items.addObject();
            item.putObject("metadata").put("name", sample.name()).put("namespace", ns.namespace())
                    .put("creationTimestamp", now).set("labels", JSON.valueToTree(sample.labels()));
            item.put("timestamp", sample.timestamp().toString())
                    .put("window", sample.window().toMillis() % 1000 == 0 ? sample.window().toSeconds() + "s" : sample.window().toMillis() + "ms");
            ArrayNode containers = item.putArray("containers");
            sample.containers().forEach((name, usage) -> containers.addObject().put("name", name).putObject("usage")
                    .put("cpu", usage.cpu()).put("memory", usage.memory()));
        }
        if (podName != null) {
            if (items.isEmpty()) {
                throw new NotFound("podmetrics.metrics.k8s.io \"" + podName + "\" not found");
            }
            ObjectNode one = (ObjectNode) items.get(0);
            one.put("apiVersion", "metrics.k8s.io/v1beta1").put("kind", "PodMetrics");
            return one;
        }
        return list;
    }

    /** The samples of the selected pods: the kubelets' (real nodes) or the namespace's set values (the fake kubelet). */
    private List<ResourceMetrics.PodSample> samples(NamespaceMetrics ns, Selector selector, Instant sampled, Duration window) {
        if (resourceMetrics != null) {
            return resourceMetrics.samples(ns.namespace()).stream().filter(s -> selector.matches(s.labels())).toList();
        }
        List<ResourceMetrics.PodSample> out = new java.util.ArrayList<>();
        for (Pod pod : pods.runningPods(ns.namespace(), selector)) {
            NamespaceMetrics.Usage usage = ns.usage(pod);
            if (usage == null) {
                continue; // no sample for this pod
            }
            Map<String, ResourceMetrics.Usage> containers = new java.util.LinkedHashMap<>();
            for (Container c : pod.getSpec().getContainers()) {
                containers.put(c.getName(), new ResourceMetrics.Usage(usage.cpu(), usage.memory()));
            }
            out.add(new ResourceMetrics.PodSample(pod.getMetadata().getName(),
                    pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels(), sampled, window, containers));
        }
        return out;
    }

    private ObjectNode custom(NamespaceMetrics ns, String version, String resource, String name, String metric, Selector selector) throws NotFound {
        ObjectNode list = list("custom.metrics.k8s.io/" + version, "MetricValueList");
        ArrayNode items = (ArrayNode) list.get("items");
        String now = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
        if (metric == null) { // namespaces/NS/metrics/NAME: a metric of the namespace itself
            if (!resource.equals("metrics")) {
                throw new NotFound("the server could not find the requested resource");
            }
            String value = ns.objectMetric("namespaces", ns.namespace(), name);
            if (value == null) {
                throw new NotFound("the server could not find the metric " + name + " for namespaces " + ns.namespace());
            }
            customItem(items.addObject(), version, "Namespace", "v1", ns.namespace(), null, name, value, now);
            return list;
        }
        if (resource.equals("pods") && name.equals("*")) {
            String value = ns.podsMetric(metric);
            if (value == null) {
                throw new NotFound("the server could not find the metric " + metric + " for pods");
            }
            for (Pod pod : pods.runningPods(ns.namespace(), selector)) {
                customItem(items.addObject(), version, "Pod", "v1", pod.getMetadata().getName(), ns.namespace(), metric, value, now);
            }
            return list;
        }
        String value = ns.objectMetric(resource, name, metric);
        if (value == null) {
            throw new NotFound("the server could not find the metric " + metric + " for " + resource + " " + name);
        }
        String group = resource.contains(".") ? resource.substring(resource.indexOf('.') + 1) : "";
        customItem(items.addObject(), version, kindOf(resource), group.isEmpty() ? "v1" : group + "/v1", name, ns.namespace(), metric, value, now);
        return list;
    }

    private static String kindOf(String qualifiedResource) {
        String plural = qualifiedResource.contains(".") ? qualifiedResource.substring(0, qualifiedResource.indexOf('.')) : qualifiedResource;
        String singular = plural.endsWith("ses") ? plural.substring(0, plural.length() - 2) : plural.endsWith("s") ? plural.substring(0, plural.length() - 1) : plural;
        return switch (singular) {
            case "replicaset" -> "ReplicaSet";
            case "statefulset" -> "StatefulSet";
            default -> Character.toUpperCase(singular.charAt(0)) + singular.substring(1);
        };
    }

    private static void customItem(ObjectNode item, String version, String kind, String apiVersion, String name, String namespace,
                                   String metric, String value, String now) {
        ObjectNode described = item.putObject("describedObject").put("kind", kind).put("name", name).put("apiVersion", apiVersion);
        if (namespace != null) {
            described.put("namespace", namespace);
        }
        if (version.equals("v1beta2")) {
            item.putObject("metric").put("name", metric);
        } else {
            item.put("metricName", metric);
        }
        item.put("timestamp", now).put("windowSeconds", 60).put("value", value);
    }

    private ObjectNode external(NamespaceMetrics ns, String metric) throws NotFound {
        List<String> values = ns.externalMetric(metric);
        if (values == null) {
            throw new NotFound("the server could not find the external metric " + metric);
        }
        ObjectNode list = list("external.metrics.k8s.io/v1beta1", "ExternalMetricValueList");
        String now = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
        for (String v : values) {
            ((ArrayNode) list.get("items")).addObject().put("metricName", metric).put("timestamp", now).put("value", v)
                    .putObject("metricLabels");
        }
        return list;
    }

    /** HTTP 200, then a space (valid JSON whitespace) a second until the client goes away: an answer that never ends. */
    private void trickle(HttpServerRequest request) {
        HttpServerResponse response = request.response().setStatusCode(200).putHeader("Content-Type", "application/json").setChunked(true);
        response.write(" ");
        long timer = vertx.setPeriodic(1000, id -> {
            if (response.closed() || response.ended()) {
                vertx.cancelTimer(id);
            } else {
                response.write(" ");
            }
        });
        response.closeHandler(v -> vertx.cancelTimer(timer));
    }

    /** An ExternalMetricValueList of about {@code bytes} bytes, written in chunks as the client takes them (back-pressure). */
    private static void flood(HttpServerRequest request, String metric, long bytes) {
        HttpServerResponse response = request.response().setStatusCode(200).putHeader("Content-Type", "application/json").setChunked(true);
        String item = "{\"metricName\":\"" + metric + "\",\"metricLabels\":{},\"timestamp\":\""
                + Instant.now().truncatedTo(ChronoUnit.MILLIS) + "\",\"value\":\"1\"}";
        String chunk = String.join(",", java.util.Collections.nCopies(1000, item));
        long chunks = Math.max(1, bytes / (chunk.length() + 1));
        response.write("{\"kind\":\"ExternalMetricValueList\",\"apiVersion\":\"external.metrics.k8s.io/v1beta1\",\"metadata\":{},\"items\":[");
        new Object() {
            long written;

            void more() {
                while (written < chunks && !response.writeQueueFull()) {
                    if (response.closed()) {
                        return; // the client stopped reading
                    }
                    response.write((written++ == 0 ? "" : ",") + chunk);
                }
                if (written < chunks) {
                    response.drainHandler(v -> more());
                } else if (!response.closed()) {
                    response.end("]}");
                }
            }
        }.more();
    }

    private static ObjectNode discovery(String path) {
        String gv = switch (path) {
            case "/apis/metrics.k8s.io/v1beta1" -> "metrics.k8s.io/v1beta1";
            case "/apis/custom.metrics.k8s.io/v1beta1" -> "custom.metrics.k8s.io/v1beta1";
            case "/apis/custom.metrics.k8s.io/v1beta2" -> "custom.metrics.k8s.io/v1beta2";
            case "/apis/external.metrics.k8s.io/v1beta1" -> "external.metrics.k8s.io/v1beta1";
            default -> null;
        };
        if (gv == null) {
            return null;
        }
        ObjectNode doc = JSON.createObjectNode().put("kind", "APIResourceList").put("apiVersion", "v1").put("groupVersion", gv);
        ArrayNode resources = doc.putArray("resources");
        if (gv.startsWith("metrics.k8s.io")) {
            resource(resources, "nodes", false, "NodeMetrics");
            resource(resources, "pods", true, "PodMetrics");
        } else if (gv.startsWith("custom")) {
            resource(resources, "*/*", true, "MetricValueList");
        } else {
            resource(resources, "*", true, "ExternalMetricValueList");
        }
        return doc;
    }

    private static void resource(ArrayNode resources, String name, boolean namespaced, String kind) {
        ObjectNode r = resources.addObject().put("name", name).put("singularName", "").put("namespaced", namespaced).put("kind", kind);
        r.putArray("verbs").add("get").add("list");
    }

    private static ObjectNode list(String apiVersion, String kind) {
        ObjectNode list = JSON.createObjectNode().put("kind", kind).put("apiVersion", apiVersion);
        list.putObject("metadata");
        list.putArray("items");
        return list;
    }

    private static ObjectNode status(int code, String message) {
        String reason = switch (code) {
            case 404 -> "NotFound";
            case 403 -> "Forbidden";
            case 503 -> "ServiceUnavailable";
            default -> "InternalError";
        };
        ObjectNode s = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1").put("status", "Failure")
                .put("message", message).put("reason", reason).put("code", code);
        s.putObject("metadata");
        return s;
    }

    private static void reply(HttpServerRequest request, int code, ObjectNode body) {
        request.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(body.toString());
    }

    private static Map<String, String> query(String q) {
        Map<String, String> out = new java.util.HashMap<>();
        if (q == null) {
            return out;
        }
        for (String part : q.split("&")) {
            if (!part.isEmpty()) {
                int eq = part.indexOf('=');
                out.put(URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8),
                        eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Override
    public void close() {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closing anyway
        }
    }
}
