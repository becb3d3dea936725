package io.hpacontroller.history;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.ServedResource;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.MetricFailures;
import io.hpacontroller.core.normalize.Normalizer;
import io.hpacontroller.core.normalize.Retention;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.StubApiServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static io.hpacontroller.testing.Keys.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link HistoryObjects} against a small stand-in for the API server that does what the fabric8 mock server does
 * not: resourceVersions, 409 on a stale one or on a create of an existing object, 404.
 */
class HistoryObjectsTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final String PATH = "/apis/autoscaling.hpa-controller.io/v1/namespaces/shop/horizontalpodautoscalerhistories";
    private static final String CLUSTER_PATH = "/apis/autoscaling.hpa-controller.io/v1/horizontalpodautoscalerhistories";
    private static final String DISCOVERY = "/apis/autoscaling.hpa-controller.io/v1";
    private static final Retention RETENTION = new Retention(0, 300_000);
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    /** The objects by name, the requests ("GET name", "POST", "PUT name"), failures to answer instead. */
    private final Map<String, ObjectNode> objects = new ConcurrentHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> failures = new ConcurrentHashMap<>();
    private final AtomicLong versions = new AtomicLong(100);
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** Whether the HorizontalPodAutoscalerHistory CRD is installed: without it, 404 for its paths and discovery does not list it. */
    private volatile boolean crdInstalled = true;
    private StubApiServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() throws IOException {
        server = StubApiServer.start(this::handle);
        client = server.client();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void handle(HttpExchange x) throws IOException {
        String method = x.getRequestMethod();
        String path = x.getRequestURI().getPath();
        if (path.equals(DISCOVERY)) {
            requests.add("DISCOVERY");
            Integer failure = failures.get("DISCOVERY");
            if (failure != null) {
                answer(x, failure, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":" + failure + "}");
                return;
            }
            answer(x, 200, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"autoscaling.hpa-controller.io/v1\","
                    + "\"resources\":[{\"name\":\"horizontalpodautoscalers\",\"namespaced\":true,\"kind\":\"HorizontalPodAutoscaler\"}"
                    + (crdInstalled ? ",{\"name\":\"horizontalpodautoscalerhistories\",\"namespaced\":true,\"kind\":\"HorizontalPodAutoscalerHistory\"}" : "")
                    + "]}");
            return;
        }
        if (!crdInstalled) {
            // what kube-apiserver answers for a resource it does not serve
            requests.add(method + (path.startsWith(PATH + "/") ? " " + path.substring(PATH.length() + 1) : ""));
            byte[] bytes = "404 page not found\n".getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
            x.sendResponseHeaders(404, bytes.length);
            x.getResponseBody().write(bytes);
            x.close();
            return;
        }
        String name = path.equals(PATH) || path.equals(CLUSTER_PATH) ? "" : path.substring(PATH.length() + 1);
        if (method.equals("GET") && name.isEmpty()) {
            method = "LIST";
        }
        requests.add(method + (name.isEmpty() ? "" : " " + name));
        String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Integer failure = failures.get(method);
        if (failure != null) {
            answer(x, failure, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"injected " + failure + "\",\"code\":" + failure + "}");
            return;
        }
        switch (method) {
            case "LIST" -> {
                // one object a page, whatever the limit (a server may return fewer): the continue token is the next index
                String query = x.getRequestURI().getQuery();
                int from = query != null && query.contains("continue=") ? Integer.parseInt(query.replaceAll(".*continue=(\\d+).*", "$1")) : 0;
                List<String> names = new ArrayList<>(new java.util.TreeSet<>(objects.keySet()));
                String items = from < names.size() ? objects.get(names.get(from)).toString() : "";
                String next = from + 1 < names.size() ? Integer.toString(from + 1) : "";
                answer(x, 200, "{\"kind\":\"HorizontalPodAutoscalerHistoryList\",\"apiVersion\":\"autoscaling.hpa-controller.io/v1\","
                        + "\"metadata\":{\"continue\":\"" + next + "\"},\"items\":[" + items + "]}");
            }
            case "GET" -> {
                ObjectNode o = objects.get(name);
                answer(x, o == null ? 404 : 200, o == null ? notFound(name) : o.toString());
            }
            case "POST" -> {
                ObjectNode o = (ObjectNode) JSON.unmarshal(body, com.fasterxml.jackson.databind.JsonNode.class);
                String n = o.path("metadata").path("name").asText();
                if (objects.containsKey(n)) {
                    answer(x, 409, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"AlreadyExists\",\"code\":409}");
                    return;
                }
                ((ObjectNode) o.get("metadata")).put("resourceVersion", Long.toString(versions.incrementAndGet()));
                objects.put(n, o);
                answer(x, 201, o.toString());
            }
            case "PUT" -> {
                ObjectNode o = (ObjectNode) JSON.unmarshal(body, com.fasterxml.jackson.databind.JsonNode.class);
                ObjectNode old = objects.get(name);
                if (old == null) {
                    answer(x, 404, notFound(name));
                    return;
                }
                if (!old.path("metadata").path("resourceVersion").asText().equals(o.path("metadata").path("resourceVersion").asText())) {
                    answer(x, 409, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Conflict\",\"code\":409}");
                    return;
                }
                ((ObjectNode) o.get("metadata")).put("resourceVersion", Long.toString(versions.incrementAndGet()));
                objects.put(name, o);
                answer(x, 200, o.toString());
            }
            default -> answer(x, 405, "{}");
        }
    }

    private static String notFound(String name) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\",\"message\":\"horizontalpodautoscalerhistories"
                + ".autoscaling.hpa-controller.io \\\"" + name + "\\\" not found\",\"code\":404}";
    }

    private static void answer(HttpExchange x, int code, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(code, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    /** One controller instance: its histories in memory and its view of the cluster's objects. */
    private record Instance(HistoryStore histories, HistoryObjects kept, WriteGate gate) {
    }

    private Instance instance() {
        HistoryStore histories = new HistoryStore();
        KubeApi api = new KubeApi(client, Duration.ofSeconds(5));
        EventRecorder recorder = (hpa, type, reason, message) -> events.add(type + " " + reason + " " + message);
        WriteGate gate = WriteGate.alwaysOpen();
        return new Instance(histories, new HistoryObjects(api, api, gate, histories, recorder, Duration.ofSeconds(15)), gate);
    }

    private static HorizontalPodAutoscaler hpa(String uid) {
        return hpa("web", uid);
    }

    private static HorizontalPodAutoscaler hpa(String name, String uid) {
        return new HorizontalPodAutoscalerBuilder().withApiVersion("autoscaling/v2").withKind("HorizontalPodAutoscaler")
                .withNewMetadata().withNamespace("shop").withName(name).withUid(uid).endMetadata().build();
    }

    private static HistorySnapshot history(List<HpaHistory.Recommendation> recs, List<HpaHistory.ScaleEvent> ups) {
        return new HistorySnapshot(true, recs, ups, List.of(), List.of(), null);
    }

    private static HpaHistory.Recommendation rec(int replicas, long at) {
        return new HpaHistory.Recommendation(replicas, at);
    }

    private List<String> writes() {
        return requests.stream().filter(r -> !r.startsWith("GET") && !r.startsWith("LIST")).toList();
    }

    @Test
    void aNewHpaWhoseHistoryIsOnlyItsFirstRecommendationWritesNothing() throws ApiException {
        Instance leader = instance();
        leader.kept().restore(hpa("u1"), NOW);
        leader.kept().save(hpa("u1"), history(List.of(rec(2, NOW)), List.of()), RETENTION, NOW);
        leader.kept().save(hpa("u1"), history(List.of(rec(2, NOW + 15_000)), List.of()), RETENTION, NOW + 15_000);

        assertThat(requests).containsExactly("GET web");
        assertThat(leader.kept().knows(key("shop/web"))).isTrue();
    }

    @Test
    void aChangeThatMattersIsWrittenOnceAndTheNextLeaderRestoresIt() throws ApiException {
        Instance leader = instance();
        leader.kept().restore(hpa("u1"), NOW);
        HistorySnapshot scaled = history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
        leader.kept().save(hpa("u1"), scaled, RETENTION, NOW);
        leader.kept().save(hpa("u1"), history(List.of(rec(8, NOW + 15_000)), List.of(new HpaHistory.ScaleEvent(6, NOW))), RETENTION, NOW + 15_000);
        HistorySnapshot dropped = history(List.of(rec(8, NOW + 15_000), rec(2, NOW + 30_000)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
        leader.kept().save(hpa("u1"), dropped, RETENTION, NOW + 30_000);
        leader.kept().save(hpa("u1"), history(List.of(rec(8, NOW + 15_000), rec(2, NOW + 45_000)), List.of(new HpaHistory.ScaleEvent(6, NOW))),
                RETENTION, NOW + 45_000);

        assertThat(writes()).as("one write per change that matters, none for the run in progress moving on").containsExactly("POST", "PUT web");
        ObjectNode stored = objects.get("web");
        assertThat(stored.at("/metadata/ownerReferences/0/uid").asText()).isEqualTo("u1");
        assertThat(stored.at("/metadata/ownerReferences/0/kind").asText()).isEqualTo("HorizontalPodAutoscaler");
        assertThat(stored.at("/metadata/ownerReferences/0/apiVersion").asText()).isEqualTo("autoscaling/v2");
        assertThat(stored.at("/spec/recommendations/0/time").asText()).isEqualTo("2027-01-15T08:00:15Z");

        Instance next = instance();
        long takeover = NOW + 60_000;
        next.kept().restore(hpa("u1"), takeover);
        assertThat(next.histories().snapshot(HpaKey.parse("shop/web"))).as("the run in progress taken to have lasted until the takeover")
                .isEqualTo(dropped.withRunUntil(takeover));
        next.kept().save(hpa("u1"), history(List.of(rec(8, NOW + 15_000), rec(2, takeover + 15_000)), List.of(new HpaHistory.ScaleEvent(6, NOW))),
                RETENTION, takeover + 15_000);
        assertThat(writes()).as("the restored history is what was kept: nothing to write").hasSize(2);
    }

    /** What an earlier leader kept for the HPAs (uid "u-NAME"): each scaled up by 6 to 8 at NOW. */
    private HistorySnapshot keptByAnEarlierLeader(String... names) throws ApiException {
        Instance old = instance();
        HistorySnapshot scaled = history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
        for (String name : names) {
            old.kept().restore(hpa(name, "u-" + name), NOW);
            old.kept().save(hpa(name, "u-" + name), scaled, RETENTION, NOW);
        }
        return scaled;
    }

    @Test
    void aNewLeaderListsTheHistoriesOnceInsteadOfReadingEachHpasAtItsFirstSync() throws ApiException {
        HistorySnapshot scaled = keptByAnEarlierLeader("web", "cart");
        for (List<String> namespaces : List.of(List.of("shop"), List.<String>of())) {
            requests.clear();
            Instance next = instance();
            long takeover = NOW + 60_000;
            next.kept().prefetch(List.of(hpa("web", "u-web"), hpa("cart", "u-cart"), hpa("api", "u-api")), namespaces, takeover);
            assertThat(requests).as("one page an object").containsExactly("LIST", "LIST");
            for (String name : List.of("web", "cart")) {
                assertThat(next.kept().knows(key("shop/" + name))).isTrue();
                assertThat(next.histories().snapshot(HpaKey.parse("shop/" + name))).isEqualTo(scaled.withRunUntil(takeover));
            }
            assertThat(next.kept().knows(key("shop/api"))).as("no object: nothing kept").isTrue();
            assertThat(next.histories().snapshot(HpaKey.parse("shop/api"))).isEqualTo(HistorySnapshot.NEVER_SEEN);

            for (String name : List.of("web", "cart", "api")) {
                next.kept().restore(hpa(name, "u-" + name), takeover + 5_000);
            }
            next.kept().restore(hpa("search", "u-search"), takeover + 5_000);
            assertThat(requests).as("only an HPA the list did not cover is read").containsExactly("LIST", "LIST", "GET search");
        }
    }

    @Test
    void theReconcileHasTheHistoryRestoredBeforeItsFirstDecisionOnceAKeyAndAgainOnceTheKeyIsForgotten() throws ApiException {
        HistorySnapshot scaled = keptByAnEarlierLeader("web");
        requests.clear();
        Instance next = instance();
        FakeCluster world = new FakeCluster(); // the target at 3 replicas, the metric at its target: nothing to scale
        world.externalMetrics.put("queue", List.of(300_000L));
        HorizontalPodAutoscaler web = Specs.hpa(1, 10, Specs.externalAverage("queue", "100"));
        web.setApiVersion("autoscaling/v2");
        web.getMetadata().setNamespace("shop");
        web.getMetadata().setUid("u-web");
        long takeover = NOW + 60_000;
        Reconciler reconciler = new Reconciler(ControllerConfig.defaults(), Ports.of(world, SelectorOwnership.NONE).withHistory(next.kept()),
                next.histories(), Clock.fixed(Instant.ofEpochMilli(takeover), ZoneOffset.UTC));

        reconciler.reconcile(web);
        assertThat(requests).as("read before the first decision").first().isEqualTo("GET web");
        assertThat(next.histories().snapshot(HpaKey.parse("shop/web")).scaleUpEvents()).as("which counted the earlier leader's scale")
                .isEqualTo(scaled.scaleUpEvents());
        reconciler.reconcile(web);
        assertThat(requests.stream().filter(r -> r.startsWith("GET"))).as("once for the key").containsExactly("GET web");

        next.kept().forget(key("shop/web")); // deleted (or written by another instance): the next sync restores again
        reconciler.reconcile(web);
        assertThat(requests.stream().filter(r -> r.startsWith("GET"))).containsExactly("GET web", "GET web");
    }

    @Test
    void aListThatIsRefusedLeavesEachHpaToBeReadAtItsFirstSync() throws ApiException {
        HistorySnapshot scaled = keptByAnEarlierLeader("web");
        failures.put("LIST", 403); // a ClusterRole from before the list verb
        requests.clear();

        Instance next = instance();
        next.kept().prefetch(List.of(hpa("web", "u-web")), List.of(), NOW + 60_000);
        assertThat(next.kept().knows(key("shop/web"))).isFalse();
        next.kept().restore(hpa("web", "u-web"), NOW + 61_000);
        assertThat(requests).containsExactly("LIST", "GET web");
        assertThat(next.histories().snapshot(HpaKey.parse("shop/web"))).isEqualTo(scaled.withRunUntil(NOW + 61_000));
        assertThat(events).isEmpty();
    }

    @Test
    void anUnreadableOrUnparseableHistoryIsAWarningAndAnEmptyHistoryThenOverwritten() throws ApiException {
        failures.put("GET", 500);
        Instance a = instance();
        a.kept().restore(hpa("u1"), NOW);
        assertThat(events).singleElement().asString().startsWith("Warning FailedRestoreHistory the kept history (HorizontalPodAutoscalerHistory shop/web)"
                + " cannot be read: injected 500");
        assertThat(a.histories().snapshot(HpaKey.parse("shop/web"))).isEqualTo(HistorySnapshot.NEVER_SEEN);

        failures.clear();
        events.clear();
        ObjectNode broken = (ObjectNode) JSON.unmarshal("{\"apiVersion\":\"autoscaling.hpa-controller.io/v1\",\"kind\":\"HorizontalPodAutoscalerHistory\","
                + "\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\",\"resourceVersion\":\"7\"},\"spec\":{\"hpa\":{\"apiVersion\":\"autoscaling/v2\","
                + "\"name\":\"web\",\"uid\":\"u1\"},\"recommendations\":[{\"replicas\":3,\"time\":\"yesterday\"}]}}", com.fasterxml.jackson.databind.JsonNode.class);
        objects.put("web", broken);
        Instance b = instance();
        b.kept().restore(hpa("u1"), NOW);
        assertThat(events).singleElement().asString().contains("cannot be parsed: recommendations[].time is not an RFC 3339 time: yesterday")
                .endsWith("deciding with an empty history, as after a restart without it");
        assertThat(b.histories().snapshot(HpaKey.parse("shop/web"))).isEqualTo(HistorySnapshot.NEVER_SEEN);

        b.kept().save(hpa("u1"), history(List.of(rec(2, NOW)), List.of()), RETENTION, NOW);
        assertThat(writes()).as("the broken object is replaced at the first sync").containsExactly("PUT web");
        assertThat(objects.get("web").at("/spec/recommendations/0/time").asText()).isEqualTo("2027-01-15T08:00:00Z");
    }

    @Test
    void theObjectOfAnEarlierHpaOfTheSameNameIsNotRestored() throws ApiException {
        Instance old = instance();
        old.kept().restore(hpa("u1"), NOW);
        old.kept().save(hpa("u1"), history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW))), RETENTION, NOW);

        Instance next = instance();
        next.kept().restore(hpa("u2"), NOW + 1000);
        assertThat(next.histories().snapshot(HpaKey.parse("shop/web"))).isEqualTo(HistorySnapshot.NEVER_SEEN);
        assertThat(events).isEmpty();
        next.kept().save(hpa("u2"), history(List.of(rec(3, NOW + 1000)), List.of()), RETENTION, NOW + 1000);
        assertThat(objects.get("web").at("/metadata/ownerReferences/0/uid").asText()).isEqualTo("u2");
    }

    @Test
    void aConflictForgetsTheHistorySoThatTheNextSyncRestoresWhatTheClusterHolds() throws ApiException {
        Instance a = instance();
        Instance b = instance();
        a.kept().restore(hpa("u1"), NOW);
        b.kept().restore(hpa("u1"), NOW);
        Normalizer.recordInitialRecommendation(b.histories().of(HpaKey.parse("shop/web")), 4, NOW);
        a.kept().save(hpa("u1"), history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW))), RETENTION, NOW);

        assertThatThrownBy(() -> b.kept().save(hpa("u1"), history(List.of(rec(5, NOW)), List.of(new HpaHistory.ScaleEvent(1, NOW))), RETENTION, NOW))
                .isInstanceOf(ApiException.Conflict.class);
        assertThat(b.gate().refusedAsFenced()).as("counted as a stale write the fencing token refused").isEqualTo(1);
        assertThat(a.gate().refusedAsFenced()).isZero();
        assertThat(b.kept().knows(key("shop/web"))).isFalse();
        assertThat(b.histories().snapshot(HpaKey.parse("shop/web"))).isEqualTo(HistorySnapshot.NEVER_SEEN);

        b.kept().restore(hpa("u1"), NOW + 1000);
        assertThat(b.histories().snapshot(HpaKey.parse("shop/web")).scaleUpEvents()).containsExactly(new HpaHistory.ScaleEvent(6, NOW));
    }

    @Test
    void aFailedWriteIsThrownAndTriedAgainAtTheNextSave() throws ApiException {
        Instance a = instance();
        a.kept().restore(hpa("u1"), NOW);
        failures.put("POST", 503);
        HistorySnapshot scaled = history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
        assertThatThrownBy(() -> a.kept().save(hpa("u1"), scaled, RETENTION, NOW)).isInstanceOf(ApiException.class).hasMessageContaining("injected 503");
        failures.clear();
        a.kept().save(hpa("u1"), scaled, RETENTION, NOW + 1000);
        assertThat(writes()).containsExactly("POST", "POST");
        assertThat(objects).containsKey("web");
    }

    @Test
    void anObjectDeletedUnderTheLeaderIsCreatedAgainByItsNextWrite() throws ApiException {
        Instance leader = instance();
        leader.kept().restore(hpa("u1"), NOW);
        leader.kept().save(hpa("u1"), history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW))), RETENTION, NOW);
        objects.clear(); // kubectl delete horizontalpodautoscalerhistories --all

        HistorySnapshot down = history(List.of(rec(8, NOW), rec(2, NOW + 15_000)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
        leader.kept().save(hpa("u1"), down, RETENTION, NOW + 15_000);
        assertThat(writes()).as("the update meets 404; the same save creates it").containsExactly("POST", "PUT web", "POST");
        assertThat(objects.get("web").at("/spec/recommendations/1/replicas").asInt()).isEqualTo(2);
        assertThat(objects.get("web").at("/metadata/ownerReferences/0/uid").asText()).isEqualTo("u1");

        leader.kept().save(hpa("u1"), history(List.of(rec(8, NOW), rec(3, NOW + 30_000)), List.of(new HpaHistory.ScaleEvent(6, NOW))),
                RETENTION, NOW + 30_000);
        assertThat(writes()).as("then updated again, with the new object's version").endsWith("POST", "PUT web");
        assertThat(events).isEmpty();
    }

    @Test
    void aMissingCrdKeepsTheHistoriesInMemoryTellsEachHpaOnceAndTheyAreWrittenAgainWhenItIsBack() throws ApiException {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ServedResource.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log = new ch.qos.logback.core.read.ListAppender<>();
        log.start();
        logger.addAppender(log);
        ch.qos.logback.classic.Level level = logger.getLevel();
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
        try {
            Instance leader = instance();
            leader.kept().restore(hpa("web", "u-web"), NOW);
            leader.kept().restore(hpa("cart", "u-cart"), NOW);
            HistorySnapshot scaled = history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
            leader.kept().save(hpa("web", "u-web"), scaled, RETENTION, NOW);
            assertThat(leader.kept().persisted()).isTrue();
            crdInstalled = false; // kubectl delete crd horizontalpodautoscalerhistories.autoscaling.hpa-controller.io
            objects.clear();
            requests.clear();

            String missing = "the API server does not serve horizontalpodautoscalerhistories.autoscaling.hpa-controller.io/v1 (is its CRD installed?)";
            HistorySnapshot down = history(List.of(rec(8, NOW), rec(2, NOW + 1_000)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
            leader.kept().save(hpa("web", "u-web"), down, RETENTION, NOW + 1_000); // not thrown: the sync goes on and scales
            assertThat(requests).containsExactly("PUT web", "POST", "DISCOVERY");
            assertThat(leader.kept().persisted()).isFalse();
            assertThat(events).singleElement().asString().startsWith("Warning " + HistoryObjects.HISTORY_NOT_PERSISTED + " " + missing)
                    .contains("kept in memory only");
            requests.clear();
            // meanwhile nothing is sent, and each HPA is told once
            leader.kept().save(hpa("web", "u-web"), history(List.of(rec(3, NOW + 1_200)), List.of()), RETENTION, NOW + 1_200);
            leader.kept().save(hpa("cart", "u-cart"), scaled, RETENTION, NOW + 1_500);
            assertThat(requests).isEmpty();
            // discovery again 1 s, then 2 s, then 4 s after
            for (long at : new long[] {2_000, 3_000, 4_000, 7_000}) {
                leader.kept().save(hpa("cart", "u-cart"), scaled, RETENTION, NOW + at);
            }
            assertThat(requests).containsExactly("DISCOVERY", "DISCOVERY");
            assertThat(events).hasSize(2).allSatisfy(e -> assertThat(e).startsWith("Warning " + HistoryObjects.HISTORY_NOT_PERSISTED));
            assertThat(log.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN)).singleElement().asString()
                    .contains(missing).contains("kept in memory only").contains("Install the CRD");

            crdInstalled = true; // installed again: empty
            requests.clear();
            leader.kept().save(hpa("web", "u-web"), down, RETENTION, NOW + 8_000);
            leader.kept().save(hpa("cart", "u-cart"), scaled, RETENTION, NOW + 8_100);
            assertThat(requests).as("the first write due asks discovery, then both histories are written again, unchanged or not")
                    .containsExactly("DISCOVERY", "PUT web", "POST", "POST");
            assertThat(objects).containsOnlyKeys("web", "cart");
            assertThat(objects.get("cart").at("/spec/scaleUpEvents/0/replicaChange").asInt()).isEqualTo(6);
            assertThat(leader.kept().persisted()).isTrue();
            assertThat(log.list).filteredOn(e -> e.getLevel() == ch.qos.logback.classic.Level.INFO).singleElement().asString().contains("again");

            crdInstalled = false; // a second outage: told again
            leader.kept().save(hpa("web", "u-web"), scaled, RETENTION, NOW + 9_000);
            assertThat(events).hasSize(3);
        } finally {
            logger.setLevel(level);
            logger.detachAppender(log);
        }
    }

    @Test
    void aNotFoundThatDiscoveryDoesNotConfirmIsThrownAsBefore() throws ApiException {
        Instance leader = instance();
        leader.kept().restore(hpa("u1"), NOW);
        HistorySnapshot scaled = history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
        failures.put("POST", 404); // the namespace going away, say: discovery still lists the resource
        assertThatThrownBy(() -> leader.kept().save(hpa("u1"), scaled, RETENTION, NOW)).isInstanceOf(ApiException.NotFound.class);
        crdInstalled = false;
        failures.put("DISCOVERY", 503); // discovery does not answer: nothing proves the CRD gone
        assertThatThrownBy(() -> leader.kept().save(hpa("u1"), scaled, RETENTION, NOW + 1_000)).isInstanceOf(ApiException.NotFound.class);
        assertThat(requests).containsExactly("GET web", "POST", "DISCOVERY", "POST", "DISCOVERY");
        assertThat(leader.kept().persisted()).isTrue();
        assertThat(events).isEmpty();
    }

    @Test
    void aWriteWaitsForTheGate() {
        HistoryStore histories = new HistoryStore();
        KubeApi api = new KubeApi(client, Duration.ofSeconds(5));
        WriteGate closed = WriteGate.alwaysOpen();
        closed.close();
        HistoryObjects kept = new HistoryObjects(api, api, closed, histories, (hpa, type, reason, message) -> { }, Duration.ofSeconds(15));
        kept.restore(hpa("u1"), NOW);
        assertThatThrownBy(() -> kept.save(hpa("u1"), history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW))), RETENTION, NOW))
                .hasMessageContaining("writes are stopped");
        assertThat(writes()).isEmpty();
    }

    @Test
    void aChangeOfTheLearnedLoadAloneIsWrittenAtMostOnceAMinute() throws ApiException {
        Instance a = instance();
        a.kept().restore(hpa("u1"), NOW);
        HistorySnapshot base = history(List.of(rec(8, NOW)), List.of(new HpaHistory.ScaleEvent(6, NOW)));
        a.kept().save(hpa("u1"), base.withLearnedLoad("A"), RETENTION, NOW);
        a.kept().save(hpa("u1"), base.withLearnedLoad("B"), RETENTION, NOW + 15_000);
        a.kept().save(hpa("u1"), base.withLearnedLoad("C"), RETENTION, NOW + 45_000);
        a.kept().save(hpa("u1"), base.withLearnedLoad("D"), RETENTION, NOW + 60_000);
        assertThat(writes()).containsExactly("POST", "PUT web");
        assertThat(objects.get("web").at("/spec/learnedLoad").asText()).isEqualTo("D");

        String tooLong = String.join("", Collections.nCopies(StoredHistory.MAX_LEARNED_LOAD + 1, "x"));
        a.kept().save(hpa("u1"), base.withScaleEvents(List.of(), List.of()).withLearnedLoad(tooLong), RETENTION, NOW + 61_000);
        assertThat(objects.get("web").at("/spec/learnedLoad").isMissingNode()).as("beyond the bound, not kept").isTrue();
    }

    /**
     * The bound per HPA: the compacted history of the longest windows and policy periods, filled to every limit of
     * {@link Retention} (recommendations in both deques, events in both directions, a failure per metric of a large
     * spec, the largest learned load), is at most 128 KiB as stored: far below etcd's 1.5 MiB per object.
     */
    @Test
    void theStoredObjectIsBoundedAt128KiB() {
        long now = NOW + 3_600_000;
        List<HpaHistory.Recommendation> recs = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            recs.add(rec(i % 2 == 0 ? 100_000 - i : 1 + i, NOW + i * 300L)); // falling highs and rising lows: both deques fill
        }
        List<HpaHistory.ScaleEvent> events = new ArrayList<>();
        for (int i = 0; i < 3600; i++) {
            events.add(new HpaHistory.ScaleEvent(100_000, NOW + i * 1000L));
        }
        List<MetricFailures.MetricFailure> failures = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            failures.add(new MetricFailures.MetricFailure("external/queue-" + "x".repeat(200) + i, NOW, true));
        }
        HistorySnapshot huge = new HistorySnapshot(true, recs, events, events, failures, "y".repeat(StoredHistory.MAX_LEARNED_LOAD));
        HistorySnapshot kept = new Retention(3_600_000, 3_600_000).compact(huge, now);

        assertThat(kept.recommendations()).hasSizeLessThanOrEqualTo(2 * Retention.MAX_PER_WINDOW + 1);
        assertThat(kept.scaleUpEvents()).hasSize(Retention.MAX_EVENTS_PER_DIRECTION);
        assertThat(kept.scaleDownEvents()).hasSize(Retention.MAX_EVENTS_PER_DIRECTION);
        String stored = JSON.asJson(StoredHistory.of(hpa("u1").edit().editMetadata().withName("n".repeat(253)).endMetadata().build(), kept, "123456"));
        assertThat(stored.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(128 * 1024);
    }

    @Test
    void aMirrorHpasObjectHasItsOwnNameAndALongNameStaysAValidName() {
        assertThat(StoredHistory.nameFor(HpaApi.BUILTIN, "web")).isEqualTo("web");
        assertThat(StoredHistory.nameFor(HpaApi.MIRROR, "web")).isEqualTo("web.mirror");
        String longName = "a".repeat(250);
        assertThat(StoredHistory.nameFor(HpaApi.MIRROR, longName)).hasSizeLessThanOrEqualTo(253)
                .isNotEqualTo(StoredHistory.nameFor(HpaApi.BUILTIN, longName.substring(0, 200) + "x"));
    }
}
