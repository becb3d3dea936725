package io.hpacontroller.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.testing.StubApiServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DelegatedAuth} against a stand-in for the API server's TokenReviews (a token starting with "good" names a
 * user) and SubjectAccessReviews (everything allowed), on a clock of its own: issue 35.6, a flood of bogus tokens.
 */
class DelegatedAuthTest {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private final AtomicInteger tokenReviews = new AtomicInteger();
    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
    private StubApiServer server;
    private KubernetesClient client;
    private DelegatedAuth auth;
    /** Fewer answers kept than {@link DelegatedAuth#MAX_KEPT}, so that the bound is passed in a few hundred reviews. */
    private static final int KEPT = 50;

    @BeforeEach
    void start() throws IOException {
        server = StubApiServer.start(this::handle);
        client = server.client();
        auth = new DelegatedAuth(new KubeApi(client, Duration.ofSeconds(5)), nanos::get, KEPT);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void handle(HttpExchange x) throws IOException {
        JsonNode body = JSON.unmarshal(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8), JsonNode.class);
        String status;
        if (x.getRequestURI().getPath().equals(DelegatedAuth.TOKEN_REVIEWS)) {
            tokenReviews.incrementAndGet();
            boolean good = body.at("/spec/token").asText().startsWith("good");
            status = good ? "{\"authenticated\":true,\"user\":{\"username\":\"prometheus\",\"uid\":\"u1\",\"groups\":[\"system:authenticated\"]}}"
                    : "{\"authenticated\":false,\"error\":\"invalid bearer token\"}";
        } else {
            status = "{\"allowed\":true}";
        }
        byte[] bytes = ("{\"kind\":\"Review\",\"apiVersion\":\"v1\",\"status\":" + status + "}").getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(201, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    /** The status a GET /metrics with this token is answered with (200: served). */
    private int get(String token) {
        EndpointServer.Response refusal = auth.refusal(new EndpointServer.Request("GET", "/metrics", null,
                Map.of("authorization", List.of("Bearer " + token))));
        return refusal == null ? 200 : refusal.status();
    }

    private void advanceSeconds(long seconds) {
        nanos.addAndGet(Duration.ofSeconds(seconds).toNanos());
    }

    @Test
    void threeThousandBogusTokensCostABurstOfReviewsThenOneASecondAndAUserSeenBeforeIsStillServed() {
        assertThat(get("good-1")).isEqualTo(200);
        advanceSeconds(DelegatedAuth.TTL_SECONDS + 1); // its review expired: reviewed again at its next request
        tokenReviews.set(0);

        int refused = 0;
        int limited = 0;
        for (int i = 0; i < 3000; i++) {
            int status = get("bogus-" + i);
            refused += status == 401 ? 1 : 0;
            limited += status == 429 ? 1 : 0;
        }
        assertThat(refused).as("reviewed and refused").isEqualTo(DelegatedAuth.FAILED_REVIEWS_BURST);
        assertThat(limited).as("not reviewed").isEqualTo(3000 - DelegatedAuth.FAILED_REVIEWS_BURST);
        assertThat(tokenReviews.get()).isEqualTo(DelegatedAuth.FAILED_REVIEWS_BURST);
        assertThat(get("bogus-0")).as("a refused token is kept refused without a review").isEqualTo(401);

        assertThat(get("good-1")).as("the user seen before is reviewed again and served during the flood").isEqualTo(200);
        assertThat(get("good-2")).as("a token never seen waits until the failures slow down").isEqualTo(429);
        assertThat(tokenReviews.get()).isEqualTo(DelegatedAuth.FAILED_REVIEWS_BURST + 1);

        advanceSeconds(5);
        int reviewed = tokenReviews.get();
        for (int i = 3000; i < 3100; i++) {
            get("bogus-" + i);
        }
        assertThat(tokenReviews.get() - reviewed).as("one failure a second given back").isEqualTo(5 * DelegatedAuth.FAILED_REVIEWS_PER_SECOND);
        advanceSeconds(DelegatedAuth.FAILED_REVIEWS_BURST * 10L);
        assertThat(get("good-2")).as("a new user served once the flood stops").isEqualTo(200);
        reviewed = tokenReviews.get();
        for (int i = 3100; i < 3200; i++) {
            get("bogus-" + i);
        }
        assertThat(tokenReviews.get() - reviewed).as("no more saved up than the burst").isEqualTo(DelegatedAuth.FAILED_REVIEWS_BURST);
    }

    @Test
    void distinctTokensKeepTheCachesBoundedAndEvictNoUser() {
        assertThat(get("good-1")).isEqualTo(200);
        for (int i = 0; i < 4 * KEPT; i++) {
            advanceSeconds(1); // slow enough that each is reviewed
            assertThat(get("bogus-" + i)).isEqualTo(401);
        }
        assertThat(tokenReviews.get()).isEqualTo(4 * KEPT + 1);
        assertThat(auth.tokensKept()).as("the one user and the last refused").isEqualTo(1 + KEPT);

        for (int i = 0; i < 3000; i++) {
            get("flood-" + i); // the failures used up, at one instant
        }
        assertThat(get("good-1")).as("thousands of refused tokens later, the user is still known, so reviewed and served").isEqualTo(200);
    }
}
