package io.hpacontroller.history;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.MetricFailures;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kept history as an earlier version wrote it (src/test/resources/history/stored-history-v1.json) still loads,
 * into the same values, and is written back the same: the format on the wire does not change with the classes
 * that hold the history in memory.
 */
class StoredHistoryFormatTest {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private static long at(String time) {
        return Instant.parse(time).toEpochMilli();
    }

    @Test
    void aHistoryKeptByAnEarlierVersionLoadsIntoTheSameValuesAndIsWrittenBackTheSame() throws IOException {
        String sample;
        try (InputStream in = getClass().getResourceAsStream("/history/stored-history-v1.json")) {
            sample = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StoredHistory stored = JSON.unmarshal(sample, StoredHistory.class);
        HistorySnapshot kept = stored.history();
        assertThat(kept).isEqualTo(new HistorySnapshot(true,
                List.of(new HpaHistory.Recommendation(9, at("2027-01-15T07:58:00Z")), new HpaHistory.Recommendation(4, at("2027-01-15T07:59:30.500Z")),
                        new HpaHistory.Recommendation(6, at("2027-01-15T08:00:00.250Z"))),
                List.of(new HpaHistory.ScaleEvent(2, at("2027-01-15T07:57:00Z"))), List.of(new HpaHistory.ScaleEvent(3, at("2027-01-15T07:59:45Z"))),
                List.of(new MetricFailures.MetricFailure("External/queue", at("2027-01-15T07:59:00Z"), true)), "AAEC"));

        HistoryStore histories = new HistoryStore();
        histories.restore(HpaKey.parse("shop/web"), kept);
        HpaHistory restored = histories.of(HpaKey.parse("shop/web"));
        assertThat(restored.recommendationsSeen()).isInstanceOfSatisfying(HpaHistory.Seen.class,
                seen -> assertThat(seen.runInProgress()).isEqualTo(new HpaHistory.Recommendation(6, at("2027-01-15T08:00:00.250Z"))));
        assertThat(histories.snapshot(HpaKey.parse("shop/web"))).isEqualTo(kept);

        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscalerBuilder().withApiVersion("autoscaling/v2").withKind("HorizontalPodAutoscaler")
                .withNewMetadata().withNamespace("shop").withName("web").withUid("u1").endMetadata().build();
        StoredHistory written = StoredHistory.of(hpa, histories.snapshot(HpaKey.parse("shop/web")), "4711");
        assertThat(JSON.convertValue(written, com.fasterxml.jackson.databind.JsonNode.class))
                .isEqualTo(JSON.unmarshal(sample, com.fasterxml.jackson.databind.JsonNode.class));
    }

    @Test
    void anHpaNeverSyncedIsNeverSeenNotAnEmptyList() {
        HistoryStore histories = new HistoryStore();
        assertThat(histories.of(HpaKey.parse("shop/web")).recommendationsSeen()).isEqualTo(HpaHistory.NeverSeen.NEVER_SEEN);
        histories.restore(HpaKey.parse("shop/web"), HistorySnapshot.NEVER_SEEN);
        assertThat(histories.of(HpaKey.parse("shop/web")).seen()).isFalse();
        assertThat(histories.snapshot(HpaKey.parse("shop/web"))).isEqualTo(HistorySnapshot.NEVER_SEEN);
    }
}
