package io.hpacontroller.core.normalize;

import io.hpacontroller.core.HpaKey;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class HpaHistoryTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final long MINUTE = 60_000L;
    private static final long SYNC = 15_000L;

    @Test
    void anHpaNeverSyncedHasNoHistoryAndItsFirstSyncRemembersTheCurrentCount() {
        HpaHistory h = new HpaHistory();
        assertThat(h.seen()).isFalse();
        assertThat(h.recommendations()).isEmpty();
        Normalizer.recordInitialRecommendation(h, 5, NOW);
        Normalizer.recordInitialRecommendation(h, 9, NOW + SYNC);
        assertThat(h.seen()).isTrue();
        assertThat(h.recommendations()).containsExactly(new HpaHistory.Recommendation(5, NOW));
    }

    @Test
    void recommendationsOlderThanAnyWindowAreDroppedAndAStaleOneIsReused() {
        HpaHistory h = new HpaHistory();
        h.setRecommendations(List.of(
                new HpaHistory.Recommendation(50, NOW - 120 * MINUTE),  // older than any window the API accepts
                new HpaHistory.Recommendation(7, NOW - 10 * MINUTE),    // outside the 5 minute window
                new HpaHistory.Recommendation(4, NOW - MINUTE)));

        int stabilized = Normalizer.stabilizeRecommendation(h, 3, NOW, 5 * MINUTE).replicas();

        assertThat(stabilized).as("the highest recommendation inside the window").isEqualTo(4);
        assertThat(h.recommendations()).containsExactlyInAnyOrder(
                new HpaHistory.Recommendation(4, NOW - MINUTE),
                new HpaHistory.Recommendation(3, NOW));
    }

    @Test
    void aWindowLongerThanAnHourKeepsItsRecommendations() {
        HpaHistory h = new HpaHistory();
        h.setRecommendations(List.of(new HpaHistory.Recommendation(9, NOW - 90 * MINUTE)));
        assertThat(Normalizer.stabilizeRecommendation(h, 3, NOW, 120 * MINUTE).replicas()).isEqualTo(9);
        assertThat(h.recommendations()).hasSize(2);
    }

    @Test
    void scaleEventsOlderThanAnHourAreDroppedAndAnOutdatedOneIsReused() {
        Behavior behavior = Behavior.withDefaults(new HorizontalPodAutoscalerBehavior(), 300);  // 15 s policies
        HpaHistory h = new HpaHistory();
        h.addScaleEvent(true, 4, NOW - 2 * 60 * MINUTE);
        h.addScaleEvent(true, 3, NOW - 10 * MINUTE);
        h.addScaleEvent(true, 2, NOW - 5_000);
        h.addScaleEvent(false, 1, NOW - 2 * 60 * MINUTE);

        ScaleEvents.record(h, behavior, 5, 6, NOW);

        assertThat(h.scaleUpEvents()).containsExactlyInAnyOrder(
                new HpaHistory.ScaleEvent(1, NOW),          // took the slot of the 10 minute old event
                new HpaHistory.ScaleEvent(2, NOW - 5_000));
        assertThat(h.scaleDownEvents()).as("untouched until a scale-down is recorded").hasSize(1);
        ScaleEvents.record(h, behavior, 6, 3, NOW);
        assertThat(h.scaleDownEvents()).containsExactly(new HpaHistory.ScaleEvent(3, NOW));
    }

    @Test
    void noScaleEventsAreRememberedWithoutBehaviorOrWithoutAChange() {
        HpaHistory h = new HpaHistory();
        ScaleEvents.record(h, null, 1, 5, NOW);
        ScaleEvents.record(h, Behavior.withDefaults(new HorizontalPodAutoscalerBehavior(), 300), 5, 5, NOW);
        assertThat(h.scaleUpEvents()).isEmpty();
        assertThat(h.scaleDownEvents()).isEmpty();
    }

    @Test
    void aChangeFromANegativeCountDoesNotWrap() {
        HpaHistory h = new HpaHistory();
        ScaleEvents.record(h, Behavior.withDefaults(new HorizontalPodAutoscalerBehavior(), 300), Integer.MIN_VALUE, 0, NOW);
        assertThat(h.scaleUpEvents()).containsExactly(new HpaHistory.ScaleEvent(Integer.MAX_VALUE, NOW));
    }

    @Test
    void onlyEventsInsideThePeriodCount() {
        HpaHistory h = new HpaHistory();
        h.addScaleEvent(true, 4, NOW - 61_000);
        h.addScaleEvent(true, 3, NOW - 60_000);  // exactly at the start of the period: outside, like upstream's After()
        h.addScaleEvent(true, 2, NOW - 59_000);
        h.addScaleEvent(false, 7, NOW - 1_000);
        assertThat(Normalizer.inPeriod(h.scaleUpEvents(), h.scaleDownEvents(), 60, NOW)).isEqualTo(new Normalizer.InPeriod(2, 7, 2));
        assertThat(Normalizer.inPeriod(h.scaleUpEvents(), h.scaleDownEvents(), 3600, NOW)).isEqualTo(new Normalizer.InPeriod(9, 7, 4));
    }

    /** A day of 15 s syncs with a recommendation that wanders and scales every few syncs: the history stays small. */
    @Test
    void aDayOfSyncsDoesNotGrowTheHistory() {
        Behavior behavior = Behavior.withDefaults(new HorizontalPodAutoscalerBehavior(), 300);
        HpaHistory withBehavior = new HpaHistory();
        HpaHistory legacy = new HpaHistory();
        Random random = new Random(42);
        int current = 10;
        int legacyCurrent = 10;
        int maxRecs = 0;
        int maxUp = 0;
        int maxDown = 0;
        int scaleUps = 0;
        int scaleDowns = 0;
        for (long t = NOW; t < NOW + 24 * 60 * MINUTE; t += SYNC) {
            int proposal = 1 + random.nextInt(40);
            int next = Normalizer.withBehavior(withBehavior, t, behavior, current, proposal, 1, 40).replicas();
            ScaleEvents.record(withBehavior, behavior, current, next, t);
            scaleUps += next > current ? 1 : 0;
            scaleDowns += next < current ? 1 : 0;
            current = next;
            legacyCurrent = Normalizer.legacy(legacy, t, 5 * MINUTE, legacyCurrent, proposal, 1, 40).replicas();
            maxRecs = Math.max(maxRecs, Math.max(withBehavior.recommendations().size(), legacy.recommendations().size()));
            maxUp = Math.max(maxUp, withBehavior.scaleUpEvents().size());
            maxDown = Math.max(maxDown, withBehavior.scaleDownEvents().size());
        }
        assertThat(scaleUps).as("the day did scale up and down").isGreaterThan(100);
        assertThat(scaleDowns).isGreaterThan(100);
        // a 5 minute window at one sync per 15 s: 20 recommendations and the new one
        assertThat(maxRecs).isLessThanOrEqualTo(21);
        // the default policies look back 15 s: one sync
        assertThat(maxUp).isLessThanOrEqualTo(2);
        assertThat(maxDown).isLessThanOrEqualTo(2);
        assertThat(legacy.scaleUpEvents()).isEmpty();
    }

    @Test
    void theStoreKeepsOneHistoryPerHpaUntilItIsForgotten() {
        HistoryStore store = new HistoryStore();
        HpaHistory a = store.of(HpaKey.parse("ns/a"));
        assertThat(store.of(HpaKey.parse("ns/a"))).isSameAs(a);
        store.of(HpaKey.parse("ns/b"));
        assertThat(store.keys()).containsExactlyInAnyOrder(HpaKey.parse("ns/a"), HpaKey.parse("ns/b"));
        store.forget(HpaKey.parse("ns/a"));
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.of(HpaKey.parse("ns/a"))).isNotSameAs(a);
    }

    @Test
    void aMetricFailureStartsAtItsFirstFailedSyncAndEndsWhenTheMetricGivesAValue() {
        MetricFailures h = new MetricFailures();
        assertThat(h.metricFailed("External/queue", 1_000)).isEqualTo(new MetricFailures.MetricFailure("External/queue", 1_000, false));
        assertThat(h.metricFailed("External/queue", 16_000).since()).as("the start stays").isEqualTo(1_000);
        assertThat(h.fallbackStarted("External/queue").fallback()).isTrue();
        assertThat(h.fallbackStarted("Resource/cpu")).as("not failing: nothing to start").isNull();
        assertThat(h.metricRecovered("External/queue")).isEqualTo(new MetricFailures.MetricFailure("External/queue", 1_000, true));
        assertThat(h.all()).isEmpty();
        assertThat(h.metricRecovered("External/queue")).isNull();
    }

    @Test
    void theFailuresOfMetricsThatLeftTheSpecAreForgotten() {
        MetricFailures h = new MetricFailures();
        h.metricFailed("External/a", 1_000);
        h.metricFailed("External/b", 2_000);
        assertThat(h.keepMetricFailuresOf(Set.of("External/b"))).extracting(MetricFailures.MetricFailure::metric).containsExactly("External/a");
        assertThat(h.all()).extracting(MetricFailures.MetricFailure::metric).containsExactly("External/b");
    }

    @Test
    void metricFailuresAreInTheSnapshotAndRestoredFromIt() {
        HistoryStore store = new HistoryStore();
        Normalizer.recordInitialRecommendation(store.of(HpaKey.parse("ns/a")), 3, 0);
        store.metricFailures(HpaKey.parse("ns/a")).metricFailed("Resource/cpu", 5_000);
        store.metricFailures(HpaKey.parse("ns/a")).fallbackStarted("Resource/cpu");
        HistorySnapshot snapshot = store.snapshot(HpaKey.parse("ns/a"));
        assertThat(snapshot.metricFailures()).containsExactly(new MetricFailures.MetricFailure("Resource/cpu", 5_000, true));
        HistoryStore restored = new HistoryStore();
        restored.restore(HpaKey.parse("ns/a"), snapshot);
        assertThat(restored.snapshot(HpaKey.parse("ns/a"))).isEqualTo(snapshot);
        assertThat(new HistorySnapshot(true, List.of(), List.of(), List.of()).metricFailures()).isEmpty();
    }
}
