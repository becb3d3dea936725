package io.hpacontroller.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.reconcile.ControllerConfig;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code /decisions} names the replica owning the HPA with {@code --sharding}, and answers as before without. */
class DecisionsEndpointTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ControllerOptions OPTIONS = new ControllerOptions(ControllerConfig.defaults(), Duration.ofSeconds(15), 2,
            List.of(), Duration.ofSeconds(5));

    private static JsonNode get(Function<HpaKey, String> owner, String path, int status) throws Exception {
        EndpointServer.Response r = new DecisionsEndpoint(new RecentDecisions(), new HistoryStore(), OPTIONS, () -> true, owner)
                .handle(new EndpointServer.Request("GET", path, null, Map.of()));
        assertThat(r.status()).isEqualTo(status);
        return JSON.readTree(new String(r.body(), StandardCharsets.UTF_8));
    }

    @Test
    void withShardingTheAnswerNamesTheOwnerAndA404SaysWhichReplicaToAsk() throws Exception {
        JsonNode other = get(key -> key.name().equals("web") ? "hpa-controller-1" : null, "/decisions/shop/web", 404);
        assertThat(other.path("owner").asText()).isEqualTo("hpa-controller-1");
        assertThat(other.path("message").asText()).isEqualTo("this instance has not synced shop/web (the replica hpa-controller-1 owns it);"
                + " a mirror HPA's decisions are at /decisions/autoscaling.hpa-controller.io/shop/web");

        JsonNode handover = get(key -> null, "/decisions/shop/web", 404);
        assertThat(handover.has("owner")).isFalse();
        assertThat(handover.path("message").asText()).startsWith("this instance has not synced shop/web (no replica claims it now: a handover");
    }

    @Test
    void withoutShardingNoOwnerIsWritten() throws Exception {
        JsonNode none = get(null, "/decisions/shop/web", 404);
        assertThat(none.has("owner")).isFalse();
        assertThat(none.has("message")).isTrue();
        assertThat(none.path("message").asText()).isEqualTo("this instance has not synced shop/web;"
                + " a mirror HPA's decisions are at /decisions/autoscaling.hpa-controller.io/shop/web");
    }
}
