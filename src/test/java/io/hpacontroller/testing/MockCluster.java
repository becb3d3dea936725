package io.hpacontroller.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.hpacontroller.core.labels.Selector;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes API for tests: the fabric8 mock server in CRUD mode, completed with what it lacks and
 * an HPA controller needs: API discovery documents, the {@code /scale} subresource (with resourceVersion
 * conflicts) for Deployments, StatefulSets, ReplicaSets, ReplicationControllers and a custom resource
 * (example.com/v1 Widget), the three metrics APIs ({@link MetricsBackend}), the pod proxy (to servers on
 * this machine), injected faults, dropped watch connections, and a record of every request.
 */
public final class MockCluster implements AutoCloseable {

    public static final CustomResourceDefinitionContext WIDGETS = new CustomResourceDefinitionContext.Builder()
            .withGroup("example.com").withVersion("v1").withKind("Widget").withPlural("widgets").withScope("Namespaced").build();

    /** A request the cluster received, and when (System.nanoTime) it arrived. */
    /** The mirror API's HPAs, stored like any custom resource. */
    public static final CustomResourceDefinitionContext MIRROR_HPAS = new CustomResourceDefinitionContext.Builder()
            .withGroup("autoscaling.hpa-controller.io").withVersion("v1").withKind("HorizontalPodAutoscaler")
            .withPlural("horizontalpodautoscalers").withScope("Namespaced").withStatusSubresource(true).build();

    /** The HPAs' kept histories (--persist-history), stored like any custom resource. */
    public static final CustomResourceDefinitionContext HISTORIES = new CustomResourceDefinitionContext.Builder()
            .withGroup("autoscaling.hpa-controller.io").withVersion("v1").withKind("HorizontalPodAutoscalerHistory")
            .withPlural("horizontalpodautoscalerhistories").withScope("Namespaced").build();

    public record Request(String method, String path, long atNanos) {
    }

    /** A fault to inject: requests matching answer with this status (and body), a number of times. */
    public static final class Fault {
        final String method;
        final Pattern path;
        final int status;
        final AtomicInteger remaining;
        final Duration delay;

        Fault(String method, String pathRegex, int status, int times, Duration delay) {
            this.method = method;
            this.path = Pattern.compile(pathRegex);
            this.status = status;
            this.remaining = new AtomicInteger(times);
            this.delay = delay;
        }
    }

    private final KubernetesMockServer server;
    private final Dispatcher dispatcher;
    private final KubernetesClient client;
    private final MetricsBackend metrics = new MetricsBackend();
    private final KubernetesSerialization json = new KubernetesSerialization();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final List<WebSocket> watches = new CopyOnWriteArrayList<>();
    private final AtomicInteger scaleConflicts = new AtomicInteger();
    private final AtomicInteger interleavedScale = new AtomicInteger(-1);
    private WorkloadController workloads;
    private volatile String gitVersion = "v1.37.0";
    private final java.util.Set<String> forbidden = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private MockCluster() {
        dispatcher = new Dispatcher();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        server.expectCustomResource(WIDGETS);
        client = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
    }

    /** Starts a cluster with the fake workload controller running. */
    public static MockCluster start() {
        MockCluster c = new MockCluster();
        c.workloads = new WorkloadController(c.client, c.metrics);
        c.workloads.start();
        return c;
    }

    /** A client for test setup and assertions (no retries). */
    public KubernetesClient client() {
        return client;
    }

    /** A new client, e.g. for a controller instance under test. */
    public KubernetesClient newClient() {
        return server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).withRequestTimeout(5000).endConfig());
    }

    public MetricsBackend metrics() {
        return metrics;
    }

    public WorkloadController workloads() {
        return workloads;
    }

    public String url() {
        return client.getMasterUrl().toString();
    }

    /** Writes a kubeconfig for this cluster (context "mock", a dummy token), for kubectl or the run command. */
    public java.nio.file.Path writeKubeconfig(java.nio.file.Path file, String namespace) throws java.io.IOException {
        return java.nio.file.Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster: {server: "%s"}
                contexts:
                - name: mock
                  context: {cluster: mock, user: test, namespace: %s}
                current-context: mock
                users:
                - name: test
                  user: {token: test}
                """.formatted(url().replaceAll("/$", ""), namespace));
    }

    // ---- requests, faults, watches ----

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    public long count(String method, Predicate<String> path) {
        return requests.stream().filter(r -> r.method().equals(method) && path.test(r.path())).count();
    }

    public void clearRequests() {
        requests.clear();
    }

    /** Answers {@code times} requests matching the method and path regex with an error status. */
    public void fail(String method, String pathRegex, int status, int times) {
        faults.add(new Fault(method, pathRegex, status, times, Duration.ZERO));
    }

    /** Delays {@code times} matching requests (a slow API). */
    public void delay(String method, String pathRegex, Duration delay, int times) {
        faults.add(new Fault(method, pathRegex, 0, times, delay));
    }

    public void clearFaults() {
        faults.clear();
    }

    /** The version {@code GET /version} reports (default v1.37.0). */
    public void serveVersion(String gitVersion) {
        this.gitVersion = gitVersion;
    }

    /**
     * SelfSubjectAccessReviews of this verb on this resource answer "not allowed", in every namespace.
     * The resource in kubectl's spelling: "pods", "horizontalpodautoscalers.autoscaling/status". Everything
     * else is allowed. (Only the reviews: the API itself does not enforce it.)
     */
    public void forbid(String verb, String resource) {
        forbidden.add(verb + " " + resource);
    }

    /** The next {@code n} scale updates answer 409 Conflict (someone else changed the target). */
    public void conflictOnNextScaleUpdates(int n) {
        scaleConflicts.set(n);
    }

    /**
     * Someone else (kubectl scale) sets the target's spec.replicas to this count just before the next
     * scale update arrives: that update was decided from the older scale, and its resourceVersion no
     * longer matches.
     */
    public void scaleBeforeNextScaleUpdate(int replicas) {
        interleavedScale.set(replicas);
    }

    /** Closes every open watch connection, as an API server restart or a network cut would. */
    public int dropWatches() {
        int n = 0;
        for (WebSocket ws : watches) {
            if (ws.close(1001, "dropped by test")) {
                n++;
            }
        }
        watches.clear();
        return n;
    }

    @Override
    public void close() {
        if (workloads != null) {
            workloads.close();
        }
        client.close();
        server.destroy();
    }

    // ---- the dispatcher ----

    private static final Pattern SCALE = Pattern.compile("^(/apis?/(?:([^/]+)/)?(v[^/]+))/namespaces/([^/]+)/([^/]+)/([^/]+)/scale$");
    private static final Pattern CUSTOM_OBJECT = Pattern.compile("^/apis/custom\\.metrics\\.k8s\\.io/v1beta2/namespaces/([^/]+)/([^/]+)/([^/]+)/([^/]+)$");
    private static final Pattern EXTERNAL = Pattern.compile("^/apis/external\\.metrics\\.k8s\\.io/v1beta1/namespaces/([^/]+)/([^/]+)$");
    private static final Pattern POD_METRICS = Pattern.compile("^/apis/metrics\\.k8s\\.io/v1beta1/namespaces/([^/]+)/pods$");
    private static final Pattern POD_PROXY = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/:]+):(\\d+)/proxy(/.*)$");

    private final class Dispatcher extends KubernetesCrudDispatcher {

        Dispatcher() {
            super(List.of(WIDGETS, MIRROR_HPAS, HISTORIES));
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String full = request.getPath();
            requests.add(new Request(request.getMethod(), full, System.nanoTime()));
            int q = full.indexOf('?');
            String path = q < 0 ? full : full.substring(0, q);
            Map<String, String> query = query(q < 0 ? "" : full.substring(q + 1));
            Duration delay = Duration.ZERO;
            for (Fault f : faults) {
                if ((f.method == null || f.method.equals(request.getMethod())) && f.path.matcher(path).find() && f.remaining.getAndDecrement() > 0) {
                    if (f.delay.isZero()) {
                        return status(f.status, "injected fault");
                    }
                    delay = f.delay;
                }
            }
            MockResponse response = answer(request, path, query);
            // the mock server dispatches on an event loop: a slow answer is a delayed body, not a sleep
            return delay.isZero() ? response : response.setBodyDelay(delay);
        }

        private MockResponse answer(RecordedRequest request, String path, Map<String, String> query) {
            if (path.equals("/version")) {
                java.util.regex.Matcher v = Pattern.compile("^v(\\d+)\\.(\\d+)").matcher(gitVersion);
                ObjectNode version = JsonNodeFactory.instance.objectNode();
                version.put("major", v.find() ? v.group(1) : "").put("minor", v.group(2)).put("gitVersion", gitVersion);
                return ok(version);
            }
            if (path.equals("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews") && "POST".equals(request.getMethod())) {
                return accessReview(request);
            }
            MockResponse discovery = Discovery.answer(path);
            if (discovery != null) {
                return discovery;
            }
            Matcher m = SCALE.matcher(path);
            if (m.matches()) {
                return scale(request, m);
            }
            m = POD_PROXY.matcher(path);
            if (m.matches()) {
                return podProxy(request, m);
            }
            if (path.startsWith("/apis/metrics.k8s.io/") || path.startsWith("/apis/custom.metrics.k8s.io/")
                    || path.startsWith("/apis/external.metrics.k8s.io/")) {
                return metricsApi(path, query);
            }
            MockResponse response = super.dispatch(query.containsKey("fieldManager") ? withoutQuery(request, path) : request);
            WebSocketListener listener = response.getWebSocketListener();
            if (listener != null) {
                response.withWebSocketUpgrade(new CapturingListener(listener));
            } else if (response.header("Content-Type") == null) {
                // client-go's typed clients (kubectl describe) only decode what is declared as JSON
                response.setHeader("Content-Type", "application/json");
            }
            return response;
        }

        /**
         * The request without its query: the CRUD dispatcher reads {@code status?fieldManager=x} as an object's name, not as
         * the status subresource, and stores nothing (the field manager means nothing to it anyway).
         */
        private static RecordedRequest withoutQuery(RecordedRequest request, String path) {
            return new RecordedRequest(request.getHttpVersion(), request.method(), path, request.getHeaders(), request.getBody());
        }

        /**
         * The API server's pod proxy, for pods that are processes on this machine: a GET to an existing pod's
         * port is forwarded to 127.0.0.1 on that port (the test runs the pod's server there).
         */
        private MockResponse podProxy(RecordedRequest request, Matcher m) {
            if (super.handleGet("/api/v1/namespaces/" + m.group(1) + "/pods/" + m.group(2)).code() != 200) {
                return status(404, "pods \"" + m.group(2) + "\" not found");
            }
            String full = request.getPath();
            String query = full.contains("?") ? full.substring(full.indexOf('?')) : "";
            try {
                java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + m.group(3) + m.group(4) + query)).timeout(Duration.ofSeconds(5)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                MockResponse response = new MockResponse().setResponseCode(r.statusCode()).setBody(r.body());
                r.headers().firstValue("Content-Type").ifPresent(t -> response.setHeader("Content-Type", t));
                return response;
            } catch (java.io.IOException e) {
                return status(503, "error trying to reach service: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return status(503, "interrupted");
            }
        }

        private MockResponse accessReview(RecordedRequest request) {
            ObjectNode review = (ObjectNode) json.unmarshal(request.getBody().readUtf8(), JsonNode.class);
            JsonNode a = review.path("spec").path("resourceAttributes");
            String resource = a.path("resource").asText() + (a.path("group").asText("").isEmpty() ? "" : "." + a.path("group").asText())
                    + (a.path("subresource").asText("").isEmpty() ? "" : "/" + a.path("subresource").asText());
            boolean allowed = !forbidden.contains(a.path("verb").asText() + " " + resource);
            review.putObject("status").put("allowed", allowed);
            return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json").setBody(json.asJson(review));
        }

        private MockResponse scale(RecordedRequest request, Matcher m) {
            String objectPath = m.group(1) + "/namespaces/" + m.group(4) + "/" + m.group(5) + "/" + m.group(6);
            MockResponse current = super.handleGet(objectPath);
            if (current.code() != 200) {
                return current;
            }
            ObjectNode object = (ObjectNode) json.unmarshal(current.getBody().readUtf8(), JsonNode.class);
            if ("GET".equals(request.getMethod())) {
                return ok(scaleOf(object, m.group(5)));
            }
            if (!"PUT".equals(request.getMethod())) {
                return status(405, "method not allowed on /scale");
            }
            JsonNode scale = json.unmarshal(request.getBody().readUtf8(), JsonNode.class);
            int interleaved = interleavedScale.getAndSet(-1);
            if (interleaved >= 0) {
                ((ObjectNode) object.with("spec")).put("replicas", interleaved);
                object = (ObjectNode) json.unmarshal(super.handleUpdate(update(objectPath, object)).getBody().readUtf8(), JsonNode.class);
            }
            String rv = scale.path("metadata").path("resourceVersion").asText("");
            if (scaleConflicts.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                    || (!rv.isEmpty() && !rv.equals(object.path("metadata").path("resourceVersion").asText()))) {
                return status(409, "Operation cannot be fulfilled on " + m.group(5) + " \"" + m.group(6)
                        + "\": the object has been modified; please apply your changes to the latest version and try again");
            }
            ((ObjectNode) object.with("spec")).put("replicas", scale.path("spec").path("replicas").asInt());
            MockResponse updated = super.handleUpdate(update(objectPath, object));
            if (updated.code() != 200) {
                return updated;
            }
            return ok(scaleOf((ObjectNode) json.unmarshal(updated.getBody().readUtf8(), JsonNode.class), m.group(5)));
        }

        private RecordedRequest update(String objectPath, ObjectNode object) {
            return new RecordedRequest("HTTP/1.1", HttpMethod.PUT, objectPath,
                    Headers.builder().add("Content-Type", "application/json").build(), new Buffer().writeUtf8(json.asJson(object)));
        }

        private ObjectNode scaleOf(ObjectNode object, String resource) {
            ObjectNode scale = JsonNodeFactory.instance.objectNode();
            scale.put("apiVersion", "autoscaling/v1");
            scale.put("kind", "Scale");
            ObjectNode meta = scale.putObject("metadata");
            meta.put("name", object.path("metadata").path("name").asText());
            meta.put("namespace", object.path("metadata").path("namespace").asText());
            meta.put("resourceVersion", object.path("metadata").path("resourceVersion").asText());
            scale.putObject("spec").put("replicas", object.path("spec").path("replicas").asInt(1));
            ObjectNode status = scale.putObject("status");
            status.put("replicas", object.path("status").path("replicas").asInt(0));
            String selector;
            if (resource.equals("widgets")) {
                selector = object.path("status").path("selector").asText(null);
            } else if (resource.equals("replicationcontrollers")) {
                selector = Selector.ofLabels(json.convertValue(object.path("spec").path("selector"), Map.class)).toString();
            } else {
                selector = Selector.fromLabelSelector(json.convertValue(object.path("spec").path("selector"), LabelSelector.class)).toString();
            }
            if (selector != null) {
                status.put("selector", selector);
            }
            return scale;
        }

        private MockResponse metricsApi(String path, Map<String, String> query) {
            Selector labels = Selector.parse(query.getOrDefault("labelSelector", ""));
            Matcher m = POD_METRICS.matcher(path);
            if (m.matches()) {
                ObjectNode list = JsonNodeFactory.instance.objectNode();
                list.put("apiVersion", "metrics.k8s.io/v1beta1");
                list.put("kind", "PodMetricsList");
                ArrayNode items = list.putArray("items");
                for (MetricsBackend.PodUsage u : metrics.podUsage(m.group(1), labels)) {
                    ObjectNode item = items.addObject();
                    item.putObject("metadata").put("name", u.pod()).put("namespace", u.namespace());
                    item.put("timestamp", u.timestamp().toString());
                    item.put("window", "30s");
                    ObjectNode c = item.putArray("containers").addObject();
                    c.put("name", "app");
                    ObjectNode usage = c.putObject("usage");
                    usage.put("cpu", u.cpu());
                    usage.put("memory", u.memory());
                }
                return ok(list);
            }
            m = CUSTOM_OBJECT.matcher(path);
            if (m.matches()) {
                String ns = m.group(1);
                ObjectNode list = JsonNodeFactory.instance.objectNode();
                list.put("kind", "MetricValueList");
                list.put("apiVersion", "custom.metrics.k8s.io/v1beta2");
                ArrayNode items = list.putArray("items");
                if (m.group(2).equals("pods") && m.group(3).equals("*")) {
                    String value = metrics.podsMetric(ns, m.group(4));
                    if (value == null) {
                        return status(404, "the server could not find the metric " + m.group(4) + " for pods");
                    }
                    for (MetricsBackend.PodUsage u : metrics.podUsage(ns, labels)) {
                        ObjectNode item = items.addObject();
                        item.putObject("describedObject").put("kind", "Pod").put("name", u.pod()).put("namespace", ns).put("apiVersion", "/v1");
                        item.putObject("metric").put("name", m.group(4));
                        item.put("timestamp", Instant.now().toString());
                        item.put("windowSeconds", 60);
                        item.put("value", value);
                    }
                    return ok(list);
                }
                String value = metrics.objectMetric(ns, m.group(2), m.group(3), m.group(4));
                if (value == null) {
                    return status(404, "the server could not find the metric " + m.group(4) + " for " + m.group(2) + " " + m.group(3));
                }
                ObjectNode item = items.addObject();
                item.putObject("describedObject").put("name", m.group(3));
                item.putObject("metric").put("name", m.group(4));
                item.put("timestamp", Instant.now().toString());
                item.put("value", value);
                return ok(list);
            }
            m = EXTERNAL.matcher(path);
            if (m.matches()) {
                List<String> values = metrics.externalMetric(m.group(1), m.group(2));
                if (values == null) {
                    return status(404, "the server could not find the external metric " + m.group(2));
                }
                ObjectNode list = JsonNodeFactory.instance.objectNode();
                list.put("kind", "ExternalMetricValueList");
                list.put("apiVersion", "external.metrics.k8s.io/v1beta1");
                ArrayNode items = list.putArray("items");
                for (String v : values) {
                    ObjectNode item = items.addObject();
                    item.put("metricName", m.group(2));
                    item.put("timestamp", Instant.now().toString());
                    item.put("value", v);
                }
                return ok(list);
            }
            return status(404, "the server could not find the requested resource");
        }

        private MockResponse ok(Object body) {
            return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(json.asJson(body));
        }
    }

    static MockResponse status(int code, String message) {
        String reason = switch (code) {
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 409 -> "Conflict";
            case 503 -> "ServiceUnavailable";
            default -> "InternalError";
        };
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"" + message.replace("\"", "\\\"")
                        + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}");
    }

    private static Map<String, String> query(String q) {
        Map<String, String> out = new HashMap<>();
        for (String part : q.split("&")) {
            if (part.isEmpty()) {
                continue;
            }
            int eq = part.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(k, v);
        }
        return out;
    }

    /**
     * Remembers watch connections so a test can drop them, and makes the mock's watch sends non-blocking.
     *
     * <p>fabric8's watch listener sends events from its own thread, and the mock web socket then waits
     * (up to 30 s) for the event loop to write them. When the watch closes, the listener waits on the
     * event loop for that thread to finish: a deadlock that stalls the server, and its shutdown, until
     * the write times out. Handing each send to the socket's event loop instead removes the wait.
     */
    private final class CapturingListener extends WebSocketListener {
        private final WebSocketListener delegate;

        CapturingListener(WebSocketListener delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onOpen(WebSocket webSocket, Response response) {
            watches.add(webSocket);
            io.vertx.core.Context loop = io.vertx.core.Vertx.currentContext();
            delegate.onOpen(loop == null ? webSocket : new SendOnLoop(webSocket, loop), response);
        }

        @Override
        public void onMessage(WebSocket webSocket, String text) {
            delegate.onMessage(webSocket, text);
        }

        @Override
        public void onClosing(WebSocket webSocket, int code, String reason) {
            watches.remove(webSocket);
            delegate.onClosing(webSocket, code, reason);
        }

        @Override
        public void onClosed(WebSocket webSocket, int code, String reason) {
            watches.remove(webSocket);
            delegate.onClosed(webSocket, code, reason);
        }

        @Override
        public void onFailure(WebSocket webSocket, Throwable t, Response response) {
            watches.remove(webSocket);
            delegate.onFailure(webSocket, t, response);
        }
    }

    /** A web socket whose sends are queued on its event loop instead of waiting for it. */
    private record SendOnLoop(WebSocket socket, io.vertx.core.Context loop) implements WebSocket {
        @Override
        public RecordedRequest request() {
            return socket.request();
        }

        @Override
        public boolean send(String text) {
            loop.runOnContext(v -> socket.send(text));
            return true;
        }

        @Override
        public boolean send(byte[] bytes) {
            loop.runOnContext(v -> socket.send(bytes));
            return true;
        }

        @Override
        public boolean close(int code, String reason) {
            return socket.close(code, reason);
        }
    }
}
