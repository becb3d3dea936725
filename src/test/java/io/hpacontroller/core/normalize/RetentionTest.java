package io.hpacontroller.core.normalize;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compacted history ({@link Retention#compact}) against the whole history on random sequences: the same
 * decisions at every sync, as long as the windows stay as they are; the bound per HPA; what a change that
 * matters is ({@link Retention#equivalent}).
 *
 * <p>Case {@code i} is built from seed {@code hpa.property.seed + i}; replay one with
 * {@code -Dhpa.property.seed=<seed> -Dhpa.property.cases=1}.
 */
class RetentionTest {

    /** What the history holds, as the kept value (no failing metric, no learned load). */
    private static HistorySnapshot snap(HpaHistory h) {
        return HistorySnapshot.of(h, List.of(), null);
    }

    private static final long NOW = 1_800_000_000_000L;
    private static final long BASE_SEED = Long.getLong("hpa.property.seed", 0x4a9c_2026L);
    private static final int CASES = Integer.getInteger("hpa.property.cases", 4000);

    private static void forEachSeed(int share, LongConsumer property) {
        for (int i = 0; i < Math.max(1, CASES / share); i++) {
            long seed = BASE_SEED + i;
            try {
                property.accept(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("property failed for seed " + seed + " (replay: -Dhpa.property.seed=" + seed
                        + " -Dhpa.property.cases=1): " + e.getMessage(), e);
            }
        }
    }

    /** A random HPA's rules: legacy or a behavior, windows from none to an hour, policies of 15 s to 30 minutes. */
    private record Rules(Behavior behavior, long downscaleMillis, int min, int max) {

        static Rules random(Random r) {
            long flag = pick(r, 0, 15, 60, 300, 3600) * 1000L;
            Behavior behavior = r.nextInt(4) == 0 ? null : Behavior.withDefaults(new HorizontalPodAutoscalerBehavior(
                    r.nextInt(5) == 0 ? null : rules(r, true), r.nextInt(5) == 0 ? null : rules(r, false)), (int) (flag / 1000));
            int min = 1 + r.nextInt(3);
            return new Rules(behavior, flag, min, min + 1 + r.nextInt(60));
        }

        private static HPAScalingRules rules(Random r, boolean up) {
            List<HPAScalingPolicy> policies = new ArrayList<>();
            for (int i = r.nextInt(4); i > 0; i--) {
                boolean pods = r.nextBoolean();
                policies.add(new HPAScalingPolicy(pick(r, 15, 30, 60, 120, 600, 1800), pods ? "Pods" : "Percent",
                        pods ? 1 + r.nextInt(6) : 10 + r.nextInt(up ? 300 : 90)));
            }
            return new HPAScalingRules(policies, r.nextInt(3) == 0 ? pick(r, "Max", "Min") : null,
                    r.nextInt(3) == 0 ? null : pick(r, 0, 15, 60, 300, 3600), null);
        }

        Retention retention() {
            return Retention.of(behavior, downscaleMillis);
        }

        Normalization decide(HpaHistory h, long now, int current, int recommendation) {
            return Normalizer.normalizeDesiredReplicas(h, now, behavior, downscaleMillis, current, recommendation, min, max);
        }
    }

    private static Behavior scaleDownWindow(int seconds) {
        return Behavior.withDefaults(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleDown().withStabilizationWindowSeconds(seconds)
                .endScaleDown().build(), 300);
    }

    @SafeVarargs
    private static <T> T pick(Random r, T... options) {
        return options[r.nextInt(options.length)];
    }

    /** A recommendation that wanders, jumps now and then, and sometimes stays put for a while. */
    private static int next(Random r, int previous, int max) {
        int roll = r.nextInt(10);
        if (roll < 4) {
            return previous;
        }
        if (roll < 6) {
            return 1 + r.nextInt(max + 10);
        }
        return Math.max(0, previous + r.nextInt(7) - 3);
    }

    @Test
    void theCompactedHistoryDecidesAsTheWholeHistoryAtEverySync() {
        int[] compactedAway = new int[1];
        int[] scaled = new int[1];
        forEachSeed(4, seed -> {
            Random r = new Random(seed);
            Rules rules = Rules.random(r);
            Retention retention = rules.retention();
            HpaHistory whole = new HpaHistory();
            HpaHistory compacted = new HpaHistory();
            long now = NOW;
            int current = rules.min() + r.nextInt(rules.max() - rules.min() + 1);
            int currentCompacted = current;
            int recommendation = current;
            Normalizer.recordInitialRecommendation(whole, current, now);
            Normalizer.recordInitialRecommendation(compacted, current, now);
            for (int step = 0; step < 120; step++) {
                recommendation = next(r, recommendation, rules.max());
                Normalization a = rules.decide(whole, now, current, recommendation);
                Normalization b = rules.decide(compacted, now, currentCompacted, recommendation);
                assertThat(b).as("step %d at +%d s, rules %s, whole history %s", step, (now - NOW) / 1000, rules, snap(whole)).isEqualTo(a);
                HistorySnapshot planned = snap(ScaleEvents.planned(compacted, rules.behavior(), currentCompacted, b.replicas(), now));
                ScaleEvents.record(whole, rules.behavior(), current, a.replicas(), now);
                ScaleEvents.record(compacted, rules.behavior(), currentCompacted, b.replicas(), now);
                assertThat(snap(compacted)).as("the history planned before the scale").isEqualTo(planned);
                scaled[0] += a.replicas() != current ? 1 : 0;
                current = a.replicas();
                currentCompacted = b.replicas();
                HistorySnapshot kept = retention.compact(snap(compacted), now);
                compactedAway[0] += snap(compacted).recommendations().size() - kept.recommendations().size();
                compacted = kept.history();
                // the next sync: mostly one period later, sometimes after a missed sync or two, sometimes sooner
                now += pick(r, 15_000L, 15_000L, 15_000L, 30_000L, 45_000L, 1_000L, 14_999L, 60_000L, 300_000L);
            }
        });
        assertThat(scaled[0]).as("the sequences scale").isGreaterThan(CASES * 5);
        assertThat(compactedAway[0]).as("compaction drops recommendations").isGreaterThan(CASES * 10);
    }

    @Test
    void aDequeNeverHoldsMoreThanItsBoundAndTheHistoryItsSum() {
        // a count falling at every 1 s sync for an hour inside an hour-long scale-down window, rising inside an hour-long scale-up window
        Retention hour = new Retention(3_600_000, 3_600_000);
        List<HpaHistory.Recommendation> falling = new ArrayList<>();
        List<HpaHistory.Recommendation> rising = new ArrayList<>();
        for (int i = 0; i < 3600; i++) {
            falling.add(new HpaHistory.Recommendation(10_000 - i, NOW + i * 1000L));
            rising.add(new HpaHistory.Recommendation(1 + i, NOW + i * 1000L));
        }
        long now = NOW + 3599 * 1000L;
        assertThat(Retention.deque(falling, now - 3_600_000, true)).hasSize(Retention.MAX_PER_WINDOW);
        assertThat(Retention.deque(rising, now - 3_600_000, false)).hasSize(Retention.MAX_PER_WINDOW);
        List<HpaHistory.Recommendation> both = new ArrayList<>(falling);
        both.addAll(rising.stream().map(x -> new HpaHistory.Recommendation(x.replicas(), x.timestamp() + 500)).toList());
        both.sort(java.util.Comparator.comparingLong(HpaHistory.Recommendation::timestamp));
        HpaHistory h = new HpaHistory();
        h.setRecommendations(both);
        assertThat(hour.compact(snap(h), now + 500).recommendations()).hasSizeLessThanOrEqualTo(2 * Retention.MAX_PER_WINDOW + 1);
    }

    @Test
    void overTheBoundAWindowHoldsMoreNeverLess() {
        // a count falling by one at every 15 s sync for an hour: the 128-entry deque is full after 32 minutes
        Behavior behavior = scaleDownWindow(3600);
        Retention retention = Retention.of(behavior, 300_000);
        HpaHistory whole = new HpaHistory();
        HpaHistory compacted = new HpaHistory();
        int merged = 0;
        for (int i = 0; i < 480; i++) {
            long now = NOW + i * 15_000L;
            int recommendation = i < 240 ? 1000 - i : 1;
            Normalization a = Normalizer.withBehavior(whole, now, behavior, 1000, recommendation, 1, 1000);
            Normalization b = Normalizer.withBehavior(compacted, now, behavior, 1000, recommendation, 1, 1000);
            assertThat(b.stabilized()).as("at +%d s", i * 15).isGreaterThanOrEqualTo(a.stabilized());
            merged += b.stabilized() > a.stabilized() ? 1 : 0;
            compacted = retention.compact(snap(compacted), now).history();
            assertThat(compacted.recommendations()).hasSizeLessThanOrEqualTo(Retention.MAX_PER_WINDOW + 1);
        }
        assertThat(merged).as("the bound was reached and held a count longer").isPositive();
    }

    @Test
    void theRunInProgressIsLastAndMovesWithoutAChangeThatMatters() {
        Retention retention = new Retention(0, 300_000);
        HpaHistory h = new HpaHistory();
        Normalizer.recordInitialRecommendation(h, 5, NOW);
        Normalizer.legacy(h, NOW, 300_000, 5, 5, 1, 10);
        HistorySnapshot first = retention.compact(snap(h), NOW);
        assertThat(first.recommendations()).containsExactly(new HpaHistory.Recommendation(5, NOW));
        assertThat(first.onlyTheRunInProgress()).as("what a new leader's first sync would make up again").isTrue();

        Normalizer.legacy(h, NOW + 15_000, 300_000, 5, 5, 1, 10);
        HistorySnapshot steady = retention.compact(snap(h), NOW + 15_000);
        assertThat(steady.runInProgress()).isEqualTo(new HpaHistory.Recommendation(5, NOW + 15_000));
        assertThat(retention.equivalent(steady, first, NOW + 15_000)).as("the same count again: only the run's time moved").isTrue();

        Normalizer.legacy(h, NOW + 30_000, 300_000, 5, 8, 1, 10);
        HistorySnapshot higher = retention.compact(snap(h), NOW + 30_000);
        assertThat(higher.recommendations()).as("8 outranks the 5s before it").containsExactly(new HpaHistory.Recommendation(8, NOW + 30_000));
        assertThat(retention.equivalent(higher, steady, NOW + 30_000)).isFalse();

        Normalizer.legacy(h, NOW + 45_000, 300_000, 8, 3, 1, 10);
        HistorySnapshot lower = retention.compact(snap(h), NOW + 45_000);
        assertThat(lower.recommendations()).as("the end of the run of 8 is known now").containsExactly(
                new HpaHistory.Recommendation(8, NOW + 30_000), new HpaHistory.Recommendation(3, NOW + 45_000));
        assertThat(retention.equivalent(lower, higher, NOW + 45_000)).isFalse();

        for (long t = NOW + 60_000; t <= NOW + 400_000; t += 15_000) {
            Normalizer.legacy(h, t, 300_000, 8, 3, 1, 10);
            assertThat(retention.equivalent(snap(h), lower, t)).as("3 again at +%d s, the 8 leaving the window on its own", (t - NOW) / 1000).isTrue();
        }
        assertThat(retention.compact(snap(h), NOW + 400_000).recommendations()).hasSize(1);
    }

    @Test
    void aScaleEventAndTheLearnedLoadAreChangesThatMatter() {
        Behavior behavior = Behavior.withDefaults(new HorizontalPodAutoscalerBehavior(), 300);
        Retention retention = Retention.of(behavior, 300_000);
        HpaHistory h = new HpaHistory();
        Normalizer.recordInitialRecommendation(h, 2, NOW);
        HistorySnapshot before = snap(h);
        HistorySnapshot planned = snap(ScaleEvents.planned(h, behavior, 2, 4, NOW));
        assertThat(snap(h)).as("planning changes nothing").isEqualTo(before);
        assertThat(planned.scaleUpEvents()).containsExactly(new HpaHistory.ScaleEvent(2, NOW));
        assertThat(retention.equivalent(planned, before, NOW)).isFalse();
        assertThat(planned.onlyTheRunInProgress()).isFalse();
        assertThat(retention.equivalent(before.withLearnedLoad("AQ=="), before, NOW)).isFalse();
        assertThat(before.withLearnedLoad("AQ==").onlyTheRunInProgress()).isFalse();
    }

    @Test
    void eventsAreKeptInTheirSlotOrderUntilTheHistoryWouldDropThemItself() {
        HpaHistory h = new HpaHistory();
        h.addScaleEvent(true, 3, NOW - 10_000);
        h.addScaleEvent(true, 9, NOW - 3_600_001);
        h.addScaleEvent(true, 1, NOW - 2_000_000);
        h.addScaleEvent(false, 2, NOW - 3_600_000);
        HistorySnapshot kept = new Retention(0, 0).compact(snap(h), NOW);
        assertThat(kept.scaleUpEvents()).containsExactly(new HpaHistory.ScaleEvent(3, NOW - 10_000), new HpaHistory.ScaleEvent(1, NOW - 2_000_000));
        assertThat(kept.scaleDownEvents()).containsExactly(new HpaHistory.ScaleEvent(2, NOW - 3_600_000));
    }

    /**
     * The load drops, the leader dies 8 s later; the new leader restores what was kept at the drop with the run
     * in progress taken to last until the old leader's end: its scale-down comes neither before the whole
     * history's would nor after the window has passed since the last high recommendation.
     */
    @Test
    void aRestoredHistoryScalesDownWhenTheWindowHasPassedSinceTheLastHighRecommendation() {
        Behavior behavior = scaleDownWindow(30);
        Retention retention = Retention.of(behavior, 300_000);
        HpaHistory whole = new HpaHistory();
        Normalizer.recordInitialRecommendation(whole, 2, NOW);
        long t = NOW;
        int current = 2;
        HistorySnapshot kept = null;
        HistorySnapshot written = HistorySnapshot.NEVER_SEEN;
        long lastHigh = 0;
        for (; t < NOW + 20_000; t += 1000) {
            int recommendation = t < NOW + 10_000 ? 8 : 2;
            lastHigh = recommendation == 8 ? t : lastHigh;
            current = Normalizer.withBehavior(whole, t, behavior, current, recommendation, 2, 8).replicas();
            kept = retention.compact(snap(whole), t);
            if (!retention.equivalent(kept, written, t)) {
                written = kept;
            }
        }
        long diedAt = NOW + 18_000;
        HpaHistory restored = written.withRunUntil(diedAt).history();
        long wholeScaledDown = -1;
        long restoredScaledDown = -1;
        int wholeCurrent = current;
        int restoredCurrent = current;
        for (t = NOW + 25_000; t < NOW + 60_000; t += 1000) {
            wholeCurrent = Normalizer.withBehavior(whole, t, behavior, wholeCurrent, 2, 2, 8).replicas();
            restoredCurrent = Normalizer.withBehavior(restored, t, behavior, restoredCurrent, 2, 2, 8).replicas();
            wholeScaledDown = wholeScaledDown < 0 && wholeCurrent == 2 ? t : wholeScaledDown;
            restoredScaledDown = restoredScaledDown < 0 && restoredCurrent == 2 ? t : restoredScaledDown;
        }
        assertThat(written.recommendations()).as("kept when the load dropped").contains(new HpaHistory.Recommendation(8, lastHigh));
        assertThat(restoredScaledDown).isEqualTo(wholeScaledDown).isEqualTo(lastHigh + 30_000);
    }

    /** Beyond the bound, the oldest events merge: a policy then counts at least what the whole history counts. */
    @Test
    void tooManyEventsMergeSoThatAPolicyAllowsNoMore() {
        Behavior behavior = Behavior.withDefaults(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleUp().addNewPolicy().withType("Pods")
                .withValue(1).withPeriodSeconds(1800).endPolicy().withStabilizationWindowSeconds(0).endScaleUp().build(), 300);
        HpaHistory whole = new HpaHistory();
        List<HpaHistory.ScaleEvent> all = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            long at = NOW + i * 2_000L;
            whole.addScaleEvent(true, 1 + i % 3, at);
            all.add(new HpaHistory.ScaleEvent(1 + i % 3, at));
        }
        long now = NOW + 1_300_000;
        HistorySnapshot kept = Retention.of(behavior, 300_000).compact(snap(whole), now);
        assertThat(kept.scaleUpEvents()).hasSize(Retention.MAX_EVENTS_PER_DIRECTION);
        assertThat(kept.scaleUpEvents().stream().mapToInt(HpaHistory.ScaleEvent::replicaChange).sum())
                .isEqualTo(all.stream().mapToInt(HpaHistory.ScaleEvent::replicaChange).sum());
        for (long since = NOW - 1; since < now; since += 7_000) {
            long s = since;
            int whole_ = all.stream().filter(e -> e.timestamp() > s).mapToInt(HpaHistory.ScaleEvent::replicaChange).sum();
            int kept_ = kept.scaleUpEvents().stream().filter(e -> e.timestamp() > s).mapToInt(HpaHistory.ScaleEvent::replicaChange).sum();
            assertThat(kept_).as("changes after +%d ms", since - NOW).isGreaterThanOrEqualTo(whole_);
        }
        HpaHistory restored = kept.history();
        Normalization a = Normalizer.withBehavior(whole, now, behavior, 10, 50, 1, 100);
        Normalization b = Normalizer.withBehavior(restored, now, behavior, 10, 50, 1, 100);
        assertThat(b.replicas()).isLessThanOrEqualTo(a.replicas());
    }
}
