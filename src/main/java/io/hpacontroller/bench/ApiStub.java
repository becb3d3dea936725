package io.hpacontroller.bench;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.shard.MemberLease;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonObject;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A lean in-process stand-in for the API server, for the {@code bench} command: N HPAs over N
 * Deployments with M pods each, served from memory. It answers exactly what the controller asks:
 * lists (paged with limit/continue) and watches (kept open, silent), discovery, the scale
 * subresource, PodMetrics by label selector, HPA status writes, events, the kept histories and Leases (the leader's,
 * and the members' of {@code run --sharding}).
 *
 * <p>Why not the fabric8 mock server: its CRUD mode keeps objects as JSON in one map searched
 * linearly, so one GET among 110,000 objects costs more than the reconcile being measured, and its
 * answers would measure the mock. Every pod's usage is half its request and every target is 50%,
 * so after the first sync nothing scales and no status changes: the steady state upstream's
 * controller spends most of its time in.
 */
public final class ApiStub implements AutoCloseable {

    private final int hpas;
    private final int podsPerHpa;
    private static final int HPAS_PER_NAMESPACE = 100;
    /** The kinds of requests {@link #counts} tells apart, each listed from the start (0 until served). */
    private static final List<String> KINDS = List.of("list", "watch", "scale-get", "scale-put", "metrics", "status", "event", "lease",
            "access-review", "history-list", "history-get", "history-write", "other");
    private final Vertx vertx;
    private HttpServer server;
    private final Map<Integer, Integer> specReplicas = new ConcurrentHashMap<>();
    private final AtomicLong resourceVersion = new AtomicLong(1000);
    private final Map<String, LongAdder> counts = KINDS.stream()
            .collect(Collectors.toUnmodifiableMap(kind -> kind, kind -> new LongAdder()));
    private final String started = Instant.now().minusSeconds(3600).toString();
    private final String[] hpaObjects;
    private final Map<Integer, String> deploymentVersions = new ConcurrentHashMap<>();
    private final List<ServerWebSocket> hpaWatchers = new CopyOnWriteArrayList<>();
    private final List<ServerWebSocket> deploymentWatchers = new CopyOnWriteArrayList<>();
    /** Per HPA, the wall-clock time (epoch ms) of its first metrics query; 0 until then. */
    private final long[] firstQuery;
    private final AtomicLong firstQueries = new AtomicLong();
    /** Metrics queries per wall-clock second (epoch second). */
    private final Map<Long, LongAdder> queriesPerSecond = new ConcurrentHashMap<>();
    /** The leases the controller holds (leader election), by namespace/name: their JSON. */
    private final Map<String, String> leases = new ConcurrentHashMap<>();
    /** Members with a Lease and no process ({@code bench --others-as-leases}), and the view their Leases publish. */
    private volatile List<String> phantoms = List.of();
    private volatile String phantomView = "";

    private static final Pattern SCALE = Pattern.compile("^/apis/apps/v1/namespaces/([^/]+)/deployments/d-(\\d+)/scale$");
    private static final Pattern METRICS = Pattern.compile("^/apis/metrics\\.k8s\\.io/v1beta1/namespaces/([^/]+)/pods$");
    private static final Pattern STATUS = Pattern.compile("^/apis/autoscaling/v2/namespaces/[^/]+/horizontalpodautoscalers/h-(\\d+)/status$");
    private static final Pattern EVENTS = Pattern.compile("^/api/v1/namespaces/[^/]+/events(/[^/]+)?$");
    private static final Pattern LEASE = Pattern.compile("^/apis/coordination\\.k8s\\.io/v1/namespaces/([^/]+)/leases(/[^/]+)?$");
    private static final Pattern HISTORIES = Pattern.compile("^/apis/autoscaling\\.hpa-controller\\.io/v1(?:/namespaces/([^/]+))?/horizontalpodautoscalerhistories(/[^/]+)?$");
    /** The HorizontalPodAutoscalerHistory objects the controller keeps (--persist-history), by namespace/name. */
    private final Map<String, String> histories = new ConcurrentHashMap<>();

    public ApiStub(int hpas, int podsPerHpa) {
        this.hpas = hpas;
        this.podsPerHpa = podsPerHpa;
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
        this.hpaObjects = new String[hpas];
        this.firstQuery = new long[hpas];
        for (int i = 0; i < hpas; i++) {
            hpaObjects[i] = hpa(i);
        }
    }

    /** Starts listening on a free port of 127.0.0.1 and returns it. */
    public int start() throws Exception {
        server = vertx.createHttpServer()
                .webSocketHandler(this::watch)
                .requestHandler(this::handle)
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        return server.actualPort();
    }

    /** Requests served, by kind ({@link #KINDS}). */
    public Map<String, Long> counts() {
        Map<String, Long> out = new ConcurrentHashMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /**
     * When the metrics were first asked about each HPA: how many HPAs were, and the wall-clock time
     * (epoch ms) of the latest first query (0 before any).
     */
    public synchronized long[] firstQueries() {
        long latest = 0;
        for (long t : firstQuery) {
            latest = Math.max(latest, t);
        }
        return new long[] {firstQueries.get(), latest};
    }

    /** Metrics queries per wall-clock second: epoch second to count. */
    public Map<Long, Long> queriesPerSecond() {
        Map<Long, Long> out = new java.util.TreeMap<>();
        queriesPerSecond.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    private void recordQuery(int hpa) {
        long now = System.currentTimeMillis();
        queriesPerSecond.computeIfAbsent(now / 1000, k -> new LongAdder()).increment();
        if (hpa >= 0 && hpa < hpas) {
            synchronized (this) {
                if (firstQuery[hpa] == 0) {
                    firstQuery[hpa] = now;
                    firstQueries.incrementAndGet();
                }
            }
        }
    }

    private void count(String kind) {
        counts.get(kind).increment();
    }

    static String namespace(int i) {
        return "bench-" + (i / HPAS_PER_NAMESPACE);
    }

    /** HPA i's key, as the controller keys it. */
    static HpaKey key(int i) {
        return HpaKey.of(HpaKey.BUILTIN_GROUP, namespace(i), "h-" + i);
    }

    /**
     * A watch: open until the client leaves. Nothing changes in this world except what the controller
     * writes, and those writes are sent to the watchers as MODIFIED events, as the API server would.
     */
    private void watch(ServerWebSocket ws) {
        count("watch");
        List<ServerWebSocket> watchers = ws.path().contains("horizontalpodautoscalers") ? hpaWatchers
                : ws.path().contains("deployments") ? deploymentWatchers : null;
        if (watchers != null) {
            watchers.add(ws);
            ws.closeHandler(v -> watchers.remove(ws));
        }
        ws.exceptionHandler(e -> { });
    }

    private static void notify(List<ServerWebSocket> watchers, String object) {
        String event = "{\"type\":\"MODIFIED\",\"object\":" + object + "}";
        for (ServerWebSocket ws : watchers) {
            if (!ws.isClosed()) {
                ws.writeTextMessage(event);
            }
        }
    }

    private void handle(HttpServerRequest req) {
        String path = req.path();
        HttpServerResponse res = req.response().putHeader("Content-Type", "application/json");
        if ("true".equals(req.getParam("watch"))) {
            count("watch");
            res.setChunked(true); // never answered further: a chunked watch that stays quiet
            return;
        }
        Matcher m;
        if (path.equals("/apis/autoscaling/v2/horizontalpodautoscalers")) {
            count("list");
            res.end(page(req, hpas, "HorizontalPodAutoscalerList", "autoscaling/v2", (sb, i) -> sb.append(hpaObjects[i])));
        } else if (path.equals("/api/v1/pods")) {
            count("list");
            res.end(page(req, hpas * podsPerHpa, "PodList", "v1", this::pod));
        } else if (path.equals("/apis/apps/v1/deployments")) {
            count("list");
            res.end(page(req, hpas, "DeploymentList", "apps/v1", this::deployment));
        } else if ((m = SCALE.matcher(path)).matches()) {
            int i = Integer.parseInt(m.group(2));
            if (req.method().name().equals("PUT")) {
                count("scale-put");
                req.body().onSuccess(b -> {
                    JsonObject scale = b.toJsonObject();
                    specReplicas.put(i, scale.getJsonObject("spec").getInteger("replicas", podsPerHpa));
                    deploymentVersions.put(i, Long.toString(resourceVersion.incrementAndGet()));
                    res.end(scale(i));
                    StringBuilder sb = new StringBuilder();
                    deployment(sb, i);
                    notify(deploymentWatchers, sb.toString());
                });
            } else {
                count("scale-get");
                res.end(scale(i));
            }
        } else if ((m = METRICS.matcher(path)).matches()) {
            count("metrics");
            String selector = req.getParam("labelSelector");
            selector = selector == null ? "" : URLDecoder.decode(selector, StandardCharsets.UTF_8);
            recordQuery(selector.startsWith("app=d-") ? parse(selector.substring("app=d-".length()), -1) : -1);
            res.end(podMetrics(m.group(1), selector));
        } else if ((m = STATUS.matcher(path)).matches()) {
            count("status");
            int i = Integer.parseInt(m.group(1));
            req.body().onSuccess(b -> {
                JsonObject hpa = b.toJsonObject();
                hpa.getJsonObject("metadata").put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()));
                String object = hpa.encode();
                hpaObjects[i] = object;
                res.end(object);
                notify(hpaWatchers, object);
            });
        } else if ((m = HISTORIES.matcher(path)).matches()) {
            history(req, res, m.group(1), m.group(2) == null ? null : m.group(2).substring(1));
        } else if (EVENTS.matcher(path).matches()) {
            count("event");
            req.body().onSuccess(b -> res.setStatusCode(req.method().name().equals("POST") ? 201 : 200).end(b));
        } else if ((m = LEASE.matcher(path)).matches()) {
            count("lease");
            lease(req, res, m.group(1), m.group(2));
        } else if (path.equals("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")) {
            count("access-review"); // run's start-up check: everything is allowed here
            req.body().onSuccess(b -> {
                JsonObject review = b.toJsonObject();
                review.put("status", new JsonObject().put("allowed", true));
                res.setStatusCode(201).end(review.encode());
            });
        } else if (path.equals("/version")) {
            count("other");
            res.end("{\"major\":\"1\",\"minor\":\"26\",\"gitVersion\":\"v1.26.1\",\"platform\":\"linux/amd64\"}");
        } else if (path.equals("/apis/autoscaling/v2")) {
            count("other"); // run's start-up check: --hpa-apis=autoscaling/v2 is served
            res.end("{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"autoscaling/v2\",\"resources\":["
                    + "{\"name\":\"horizontalpodautoscalers\",\"namespaced\":true,\"kind\":\"HorizontalPodAutoscaler\",\"verbs\":[\"get\",\"list\",\"watch\",\"update\"]},"
                    + "{\"name\":\"horizontalpodautoscalers/status\",\"namespaced\":true,\"kind\":\"HorizontalPodAutoscaler\",\"verbs\":[\"get\",\"update\"]}]}");
        } else if (path.equals("/apis/autoscaling.hpa-controller.io/v1")) {
            count("other"); // run's start-up check: --persist-history needs the history objects served
            res.end("{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"autoscaling.hpa-controller.io/v1\",\"resources\":["
                    + "{\"name\":\"horizontalpodautoscalerhistories\",\"namespaced\":true,\"kind\":\"HorizontalPodAutoscalerHistory\","
                    + "\"verbs\":[\"get\",\"create\",\"update\"]}]}");
        } else if (path.equals("/apis/apps/v1")) {
            count("other");
            res.end("{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"apps/v1\",\"resources\":["
                    + "{\"name\":\"deployments\",\"namespaced\":true,\"kind\":\"Deployment\",\"verbs\":[\"get\",\"list\",\"watch\"]},"
                    + "{\"name\":\"deployments/scale\",\"namespaced\":true,\"kind\":\"Scale\",\"verbs\":[\"get\",\"update\"]}]}");
        } else {
            count("other");
            res.setStatusCode(404).end("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"not found: " + path + "\",\"code\":404}");
        }
    }

    /**
     * Leases as the API server keeps them: create, get, update guarded by the resourceVersion, and a list by one
     * {@code key=value} label selector (the members' Leases of {@code run --sharding}).
     */
    private void lease(HttpServerRequest req, HttpServerResponse res, String namespace, String named) {
        String method = req.method().name();
        if (named == null) {
            if (method.equals("GET")) {
                res.end(leaseList(namespace, req.getParam("labelSelector")));
                return;
            }
            if (!method.equals("POST")) {
                res.setStatusCode(405).end();
                return;
            }
            req.body().onSuccess(b -> {
                JsonObject lease = b.toJsonObject();
                String key = namespace + "/" + lease.getJsonObject("metadata").getString("name");
                lease.getJsonObject("metadata").put("namespace", namespace).put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()));
                String stored = lease.encode();
                if (leases.putIfAbsent(key, stored) != null) {
                    res.setStatusCode(409).end(status(409, "AlreadyExists", "leases \"" + key + "\" already exists"));
                } else {
                    res.setStatusCode(201).end(stored);
                }
            });
            return;
        }
        String key = namespace + "/" + named.substring(1);
        if (method.equals("GET")) {
            String stored = leases.get(key);
            if (stored == null) {
                res.setStatusCode(404).end(status(404, "NotFound", "leases \"" + named.substring(1) + "\" not found"));
            } else {
                res.end(stored);
            }
            return;
        }
        req.body().onSuccess(b -> {
            JsonObject lease = b.toJsonObject();
            String sent = lease.getJsonObject("metadata").getString("resourceVersion");
            lease.getJsonObject("metadata").put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()));
            String stored = lease.encode();
            String replaced = leases.computeIfPresent(key, (k, old) ->
                    new JsonObject(old).getJsonObject("metadata").getString("resourceVersion").equals(sent) ? stored : old);
            if (replaced == null) {
                res.setStatusCode(404).end(status(404, "NotFound", "leases not found"));
            } else if (replaced != stored) {
                res.setStatusCode(409).end(status(409, "Conflict", "the object has been modified"));
            } else {
                res.end(stored);
            }
        });
    }

    /**
     * From now on, each list of members' Leases also holds one for each of {@code phantoms}, publishing {@code view}
     * and renewed as it is read (so always live): other members whose processes run elsewhere, as on other nodes.
     * They sync nothing; their share of the HPAs is left alone.
     */
    public void phantomMembers(List<String> phantoms, List<String> view) {
        this.phantomView = MemberLease.viewText(new TreeSet<>(view));
        this.phantoms = List.copyOf(phantoms);
    }

    private String phantomLease(String namespace, String group, String identity) {
        JsonObject meta = new JsonObject().put("name", MemberLease.leaseName(group, identity)).put("namespace", namespace)
                .put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()))
                .put("labels", new JsonObject().put(MemberLease.MEMBER_LABEL, group))
                .put("annotations", new JsonObject().put(MemberLease.VIEW_ANNOTATION, phantomView));
        JsonObject spec = new JsonObject().put("holderIdentity", identity).put("leaseDurationSeconds", 15)
                .put("renewTime", Instant.now().truncatedTo(ChronoUnit.MICROS).toString());
        return new JsonObject().put("apiVersion", "coordination.k8s.io/v1").put("kind", "Lease").put("metadata", meta).put("spec", spec).encode();
    }

    /** The Leases of a namespace whose labels hold the selector's one {@code key=value} (every Lease without a selector). */
    private String leaseList(String namespace, String selector) {
        String[] wanted = selector == null || selector.isEmpty() ? null : URLDecoder.decode(selector, StandardCharsets.UTF_8).split("=", 2);
        StringBuilder items = new StringBuilder();
        leases.forEach((key, stored) -> {
            JsonObject labels = new JsonObject(stored).getJsonObject("metadata").getJsonObject("labels");
            boolean matches = wanted == null || wanted.length == 2 && labels != null && wanted[1].equals(labels.getString(wanted[0]));
            if (key.startsWith(namespace + "/") && matches) {
                items.append(items.length() == 0 ? "" : ",").append(stored);
            }
        });
        if (wanted != null && wanted.length == 2 && wanted[0].equals(MemberLease.MEMBER_LABEL)) {
            for (String identity : phantoms) {
                items.append(items.length() == 0 ? "" : ",").append(phantomLease(namespace, wanted[1], identity));
            }
        }
        return "{\"kind\":\"LeaseList\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"" + resourceVersion.get()
                + "\"},\"items\":[" + items + "]}";
    }

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"" + reason + "\",\"message\":\""
                + message.replace("\"", "\\\"") + "\",\"code\":" + code + "}";
    }

    /** A kept history: GET (404 until written), POST (create), PUT (replace); no conflicts: one controller writes here. */
    private void history(HttpServerRequest req, HttpServerResponse res, String namespace, String name) {
        String method = req.method().name();
        if (method.equals("GET") && name == null) {
            count("history-list"); // one page: the bench's HPAs keep few objects
            String prefix = namespace == null ? "" : namespace + "/";
            StringBuilder items = new StringBuilder();
            histories.forEach((key, object) -> {
                if (key.startsWith(prefix)) {
                    items.append(items.length() == 0 ? "" : ",").append(object);
                }
            });
            res.end("{\"kind\":\"HorizontalPodAutoscalerHistoryList\",\"apiVersion\":\"autoscaling.hpa-controller.io/v1\",\"metadata\":{},\"items\":["
                    + items + "]}");
            return;
        }
        if (method.equals("GET")) {
            count("history-get");
            String object = histories.get(namespace + "/" + name);
            if (object == null) {
                res.setStatusCode(404).end("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\",\"code\":404}");
            } else {
                res.end(object);
            }
            return;
        }
        count("history-write");
        req.body().onSuccess(b -> {
            JsonObject history = b.toJsonObject();
            JsonObject meta = history.getJsonObject("metadata");
            meta.put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()));
            String object = history.encode();
            histories.put(namespace + "/" + meta.getString("name"), object);
            res.setStatusCode(method.equals("POST") ? 201 : 200).end(object);
        });
    }

    private interface ItemWriter {
        void write(StringBuilder sb, int index);
    }

    /** A page of a list: ?limit=L&continue=OFFSET. */
    private String page(HttpServerRequest req, int total, String kind, String apiVersion, ItemWriter item) {
        int limit = parse(req.getParam("limit"), total);
        int from = parse(req.getParam("continue"), 0);
        int to = Math.min(total, from + Math.max(1, limit));
        StringBuilder sb = new StringBuilder(256 * (to - from) + 256);
        sb.append("{\"apiVersion\":\"").append(apiVersion).append("\",\"kind\":\"").append(kind)
                .append("\",\"metadata\":{\"resourceVersion\":\"").append(resourceVersion.get()).append('"');
        if (to < total) {
            sb.append(",\"continue\":\"").append(to).append('"');
        }
        sb.append("},\"items\":[");
        for (int i = from; i < to; i++) {
            if (i > from) {
                sb.append(',');
            }
            item.write(sb, i);
        }
        return sb.append("]}").toString();
    }

    private static int parse(String s, int dflt) {
        if (s == null || s.isEmpty()) {
            return dflt;
        }
        try {
            return Integer.parseInt(URLDecoder.decode(s, StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private String hpa(int i) {
        return "{\"apiVersion\":\"autoscaling/v2\",\"kind\":\"HorizontalPodAutoscaler\",\"metadata\":{\"name\":\"h-" + i
                + "\",\"namespace\":\"" + namespace(i) + "\",\"uid\":\"hpa-" + i
                + "\",\"resourceVersion\":\"10\",\"generation\":1},\"spec\":{\"scaleTargetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"d-"
                + i + "\"},\"minReplicas\":1,\"maxReplicas\":" + podsPerHpa * 2
                + ",\"metrics\":[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"target\":{\"type\":\"Utilization\",\"averageUtilization\":50}}}]}}";
    }

    private void pod(StringBuilder sb, int p) {
        int d = p / podsPerHpa;
        sb.append("{\"metadata\":{\"name\":\"d-").append(d).append('-').append(p % podsPerHpa).append("\",\"namespace\":\"").append(namespace(d))
                .append("\",\"uid\":\"pod-").append(p).append("\",\"resourceVersion\":\"5\",\"labels\":{\"app\":\"d-").append(d)
                .append("\",\"pod-template-hash\":\"7d9f8c6b5\"}},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.27\",")
                .append("\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]},\"status\":{\"phase\":\"Running\",\"startTime\":\"")
                .append(started).append("\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"").append(started)
                .append("\"}]}}");
    }

    private void deployment(StringBuilder sb, int d) {
        sb.append("{\"metadata\":{\"name\":\"d-").append(d).append("\",\"namespace\":\"").append(namespace(d))
                .append("\",\"uid\":\"dep-").append(d).append("\",\"resourceVersion\":\"").append(deploymentVersions.getOrDefault(d, "20"))
                .append("\"},\"spec\":{\"replicas\":").append(specReplicas.getOrDefault(d, podsPerHpa))
                .append(",\"selector\":{\"matchLabels\":{\"app\":\"d-").append(d).append("\"}}},\"status\":{\"replicas\":").append(podsPerHpa).append("}}");
    }

    private String scale(int d) {
        return "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"d-" + d + "\",\"namespace\":\"" + namespace(d)
                + "\",\"resourceVersion\":\"" + deploymentVersions.getOrDefault(d, "20") + "\"},\"spec\":{\"replicas\":"
                + specReplicas.getOrDefault(d, podsPerHpa) + "},\"status\":{\"replicas\":" + podsPerHpa + ",\"selector\":\"app=d-" + d + "\"}}";
    }

    private String podMetrics(String namespace, String selector) {
        StringBuilder sb = new StringBuilder(200 * podsPerHpa + 128);
        sb.append("{\"kind\":\"PodMetricsList\",\"apiVersion\":\"metrics.k8s.io/v1beta1\",\"metadata\":{},\"items\":[");
        if (selector.startsWith("app=d-")) {
            int d = Integer.parseInt(selector.substring("app=d-".length()));
            String now = Instant.now().toString();
            for (int j = 0; j < podsPerHpa; j++) {
                if (j > 0) {
                    sb.append(',');
                }
                sb.append("{\"metadata\":{\"name\":\"d-").append(d).append('-').append(j).append("\",\"namespace\":\"").append(namespace)
                        .append("\"},\"timestamp\":\"").append(now).append("\",\"window\":\"30s\",\"containers\":[{\"name\":\"app\",\"usage\":{\"cpu\":\"50m\",\"memory\":\"20Mi\"}}]}");
            }
        }
        return sb.append("]}").toString();
    }

    @Override
    public void close() {
        vertx.close();
    }
}
