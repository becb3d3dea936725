package io.hpacontroller.bench;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The stub's Leases as {@code run --sharding} uses them (ShardLeases): create, list by label, update guarded by resourceVersion. */
class ApiStubLeasesTest {

    private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/bench/leases";
    private static ApiStub stub;
    private static HttpClient http;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        stub = new ApiStub(1, 1);
        port = stub.start();
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() {
        stub.close();
    }

    private static HttpResponse<String> send(String method, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String lease(String name, String label, String resourceVersion) {
        JsonObject meta = new JsonObject().put("name", name);
        if (label != null) {
            meta.put("labels", new JsonObject().put("hpa-controller.io/shard-of", label));
        }
        if (resourceVersion != null) {
            meta.put("resourceVersion", resourceVersion);
        }
        return new JsonObject().put("apiVersion", "coordination.k8s.io/v1").put("kind", "Lease").put("metadata", meta)
                .put("spec", new JsonObject().put("holderIdentity", name)).encode();
    }

    @Test
    void membersAreListedByTheirLabelAndAStaleUpdateConflicts() throws Exception {
        HttpResponse<String> a = send("POST", LEASES, lease("hpa-controller-shard-a", "hpa-controller", null));
        assertThat(a.statusCode()).isEqualTo(201);
        assertThat(send("POST", LEASES, lease("hpa-controller-shard-b", "hpa-controller", null)).statusCode()).isEqualTo(201);
        assertThat(send("POST", LEASES, lease("hpa-controller", null, null)).statusCode()).isEqualTo(201); // the leader's, unlabelled
        assertThat(send("POST", LEASES, lease("other-shard-c", "other", null)).statusCode()).isEqualTo(201);

        HttpResponse<String> list = send("GET", LEASES + "?labelSelector=hpa-controller.io%2Fshard-of%3Dhpa-controller", null);
        assertThat(list.statusCode()).isEqualTo(200);
        JsonObject members = new JsonObject(list.body());
        assertThat(members.getString("kind")).isEqualTo("LeaseList");
        assertThat(members.getJsonObject("metadata").getString("resourceVersion")).isNotEmpty();
        assertThat(members.getJsonArray("items").stream().map(o -> ((JsonObject) o).getJsonObject("metadata").getString("name")))
                .containsExactlyInAnyOrder("hpa-controller-shard-a", "hpa-controller-shard-b");
        assertThat(new JsonObject(send("GET", LEASES, null).body()).getJsonArray("items")).hasSize(4);
        assertThat(new JsonObject(send("GET", "/apis/coordination.k8s.io/v1/namespaces/elsewhere/leases", null).body())
                .getJsonArray("items")).isEmpty();

        String version = new JsonObject(a.body()).getJsonObject("metadata").getString("resourceVersion");
        String path = LEASES + "/hpa-controller-shard-a";
        HttpResponse<String> renewed = send("PUT", path, lease("hpa-controller-shard-a", "hpa-controller", version));
        assertThat(renewed.statusCode()).isEqualTo(200);
        assertThat(new JsonObject(renewed.body()).getJsonObject("metadata").getString("resourceVersion")).isNotEqualTo(version);
        assertThat(send("PUT", path, lease("hpa-controller-shard-a", "hpa-controller", version)).statusCode()).as("a stale renewal").isEqualTo(409);
    }

    @Test
    void phantomMembersAreListedWithTheirViewAndRenewedAtEveryList() throws Exception {
        stub.phantomMembers(List.of("r-2", "r-3"), List.of("r-1", "r-2", "r-3"));
        try {
            assertPhantoms();
        } finally {
            stub.phantomMembers(List.of(), List.of());
        }
    }

    private static void assertPhantoms() throws Exception {
        String members = LEASES + "?labelSelector=hpa-controller.io%2Fshard-of%3Dphantoms";
        JsonObject first = new JsonObject(send("GET", members, null).body());
        assertThat(first.getJsonArray("items")).hasSize(2);
        JsonObject two = first.getJsonArray("items").getJsonObject(0);
        assertThat(two.getJsonObject("metadata").getString("name")).isEqualTo("phantoms-shard-r-2");
        assertThat(two.getJsonObject("metadata").getJsonObject("labels").getString("hpa-controller.io/shard-of")).isEqualTo("phantoms");
        assertThat(two.getJsonObject("metadata").getJsonObject("annotations").getString("hpa-controller.io/shard-view")).isEqualTo("r-1,r-2,r-3");
        assertThat(two.getJsonObject("spec").getString("holderIdentity")).isEqualTo("r-2");
        Thread.sleep(2); // a renewTime is in microseconds: the next list's is later
        JsonObject again = new JsonObject(send("GET", members, null).body()).getJsonArray("items").getJsonObject(0);
        assertThat(Instant.parse(again.getJsonObject("spec").getString("renewTime"))).as("renewed as it is read: always live")
                .isAfter(Instant.parse(two.getJsonObject("spec").getString("renewTime")));
        assertThat(again.getJsonObject("metadata").getString("resourceVersion")).isNotEqualTo(two.getJsonObject("metadata").getString("resourceVersion"));
        assertThat(new JsonObject(send("GET", LEASES + "?labelSelector=hpa-controller.io%2Fshard-of%3Dhpa-controller", null).body())
                .getJsonArray("items").stream().map(o -> ((JsonObject) o).getJsonObject("metadata").getString("name")))
                .as("and in every group's list, as members of it").contains("hpa-controller-shard-r-2", "hpa-controller-shard-r-3");
        assertThat(new JsonObject(send("GET", LEASES, null).body()).getJsonArray("items").stream()
                .map(o -> ((JsonObject) o).getJsonObject("metadata").getString("name"))).as("not in a list without the member label")
                .noneMatch(name -> name.contains("-shard-r-"));
    }
}
