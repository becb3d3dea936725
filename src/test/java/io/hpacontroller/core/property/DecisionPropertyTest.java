package io.hpacontroller.core.property;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.conformance.TraceConsistency;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.ScalingPolicy;
import io.hpacontroller.core.normalize.ScalingRules;
import io.hpacontroller.core.normalize.SelectPolicy;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.LongConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of the decision core over thousands of random HPAs, pods, metrics, behaviors and histories
 * ({@link RandomWorld}), each driven through the {@link Reconciler} with in-memory ports.
 *
 * <p>Case {@code i} is built from seed {@code hpa.property.seed + i}. A failure names its seed; replay it
 * alone with {@code mvn test -Dtest=DecisionPropertyTest -Dhpa.property.seed=<seed> -Dhpa.property.cases=1}.
 */
class DecisionPropertyTest {

    private static final long BASE_SEED = Long.getLong("hpa.property.seed", 0x4a9c_2026L);
    private static final int CASES = Integer.getInteger("hpa.property.cases", 4000);
    private static final long SYNC_PERIOD = 15_000L;

    /** Runs {@code CASES / share} cases (at least one), wrapping a failure with the seed that replays it. */
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

    private static Clock at(long millis) {
        return Clock.fixed(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    private static ReconcileOutcome sync(RandomWorld w, HistoryStore histories, long now) {
        return w.cluster.reconciler(w.config, histories, at(now)).reconcile(w.hpa);
    }

    @Test
    void theWrittenCountStaysInsideMinAndMaxAndWithinTheRateLimits() {
        int[] scaled = new int[1];
        forEachSeed(1, seed -> {
            RandomWorld w = RandomWorld.any(seed);
            HistoryStore histories = new HistoryStore();
            HpaHistory history = histories.of(HpaKey.of(w.hpa));
            w.seedHistory(history);
            List<HpaHistory.ScaleEvent> ups = history.scaleUpEvents();
            List<HpaHistory.ScaleEvent> downs = history.scaleDownEvents();

            ReconcileOutcome o = sync(w, histories, RandomWorld.NOW);

            checkStep(w, o, ups, downs, RandomWorld.NOW);
            assertThat(TraceConsistency.ofSync(o, w.cluster.scaleWrites, w.cluster.pods.size())).as(w::describe).isEmpty();
            scaled[0] += w.cluster.scaleWrites.size();
        });
        if (CASES >= 1000) {
            assertThat(scaled[0]).as("enough of the random cases scale to make the properties meaningful").isGreaterThan(CASES / 5);
        }
    }

    @Test
    void aSequenceOfSyncsStaysWithinTheRateLimits() {
        int[] scaled = new int[1];
        forEachSeed(20, seed -> {
            RandomWorld w = RandomWorld.forSequence(seed);
            HistoryStore histories = new HistoryStore();
            HpaHistory history = histories.of(HpaKey.of(w.hpa));
            long now = RandomWorld.NOW;
            for (int step = 0; step < 40; step++) {
                List<HpaHistory.ScaleEvent> ups = history.scaleUpEvents();
                List<HpaHistory.ScaleEvent> downs = history.scaleDownEvents();
                int writes = w.cluster.scaleWrites.size();
                int current = w.cluster.scale.specReplicas();
                ReconcileOutcome o = sync(w, histories, now);
                assertThat(TraceConsistency.ofSync(o, w.cluster.scaleWrites.subList(writes, w.cluster.scaleWrites.size()), w.cluster.pods.size()))
                        .as("step %d", step).isEmpty();
                for (int n : w.cluster.scaleWrites.subList(writes, w.cluster.scaleWrites.size())) {
                    assertThat(n).as("step %d", step).isBetween(w.minReplicas, w.maxReplicas);
                    checkRate(w.hpa, w.config.downscaleStabilization().toSeconds(), current, n, ups, downs, now);
                }
                w.hpa.setStatus(o.status());
                now += SYNC_PERIOD;
                w.nextLoad(now);
            }
            scaled[0] += w.cluster.scaleWrites.size();
        });
        if (CASES >= 1000) {
            assertThat(scaled[0]).as("the sequences scale").isGreaterThan(CASES / 20);
        }
    }

    @Test
    void noChangeWhileEveryMetricIsInsideTheTolerance() {
        forEachSeed(2, seed -> {
            RandomWorld w = RandomWorld.insideTolerance(seed);
            ReconcileOutcome o = sync(w, new HistoryStore(), RandomWorld.NOW);
            assertThat(o.error()).as(() -> w.describe() + "\n" + o.errorMessage()).isEqualTo(ReconcileOutcome.ErrorKind.NONE);
            assertThat(o.proposedReplicas()).as(w::describe).isEqualTo(w.current);
            assertThat(w.cluster.scaleWrites).as(w::describe).isEmpty();
            assertThat(o.desiredReplicas()).isEqualTo(w.current);
        });
    }

    @Test
    void theSameInputGivesTheSameDecision() {
        forEachSeed(4, seed -> {
            Decision first = decide(RandomWorld.any(seed));
            Decision second = decide(RandomWorld.any(seed));
            assertThat(second).isEqualTo(first);
        });
    }

    /** Everything a sync decided and wrote, minus the timings. */
    private record Decision(List<Integer> scaleWrites, List<FakeCluster.Event> events, int proposed, int desired,
                            ReconcileOutcome.Action action, ReconcileOutcome.ErrorKind error, String message, String limit,
                            Object status, boolean statusWritten) {
    }

    private static Decision decide(RandomWorld w) {
        HistoryStore histories = new HistoryStore();
        w.seedHistory(histories.of(HpaKey.of(w.hpa)));
        ReconcileOutcome o = sync(w, histories, RandomWorld.NOW);
        return new Decision(w.cluster.scaleWrites, w.cluster.events, o.proposedReplicas(), o.desiredReplicas(), o.action(),
                o.error(), o.errorMessage(), o.limitReason(), o.status(), o.statusWritten());
    }

    // ---- the checks ----

    private static void checkStep(RandomWorld w, ReconcileOutcome o, List<HpaHistory.ScaleEvent> ups,
                                  List<HpaHistory.ScaleEvent> downs, long now) {
        List<Integer> writes = w.cluster.scaleWrites;
        assertThat(writes).as("at most one scale write per sync").hasSizeLessThanOrEqualTo(1);
        assertThat(o.rescaled()).isEqualTo(!writes.isEmpty());
        for (int n : writes) {
            // a valid spec never gets a count outside its bounds, whatever the current count was
            assertThat(n).as(w::describe).isBetween(w.minReplicas, w.maxReplicas);
            if (w.current >= w.minReplicas && w.current <= w.maxReplicas) {
                checkRate(w.hpa, w.config.downscaleStabilization().toSeconds(), w.current, n, ups, downs, now);
            }
        }
        if (writes.isEmpty() && o.error() == ReconcileOutcome.ErrorKind.NONE && w.current > 0) {
            assertThat(o.desiredReplicas()).isEqualTo(w.current);
        }
    }

    /**
     * A change from {@code current} to {@code next} respects the limits: without behavior at most
     * max(2 x current, 4) up; with behavior, per direction, Disabled allows no change, Max allows what any
     * policy allows and Min what every policy allows, where a policy counts from the replica count at the
     * start of its period (undoing the remembered scale events inside the period).
     */
    private static void checkRate(HorizontalPodAutoscaler hpa, long downscaleSeconds, int current, int next,
                                  List<HpaHistory.ScaleEvent> ups, List<HpaHistory.ScaleEvent> downs, long now) {
        if (next == current) {
            return;
        }
        boolean up = next > current;
        if (hpa.getSpec().getBehavior() == null) {
            if (up) {
                assertThat((long) next).as("legacy scale-up from %d", current).isLessThanOrEqualTo(Math.max(2L * current, 4));
            }
            return;
        }
        Behavior behavior = Behavior.withDefaults(hpa.getSpec().getBehavior(), (int) downscaleSeconds);
        ScalingRules rules = up ? behavior.scaleUp() : behavior.scaleDown();
        assertThat(rules.selectPolicy()).as("a Disabled direction never changes the count").isNotEqualTo(SelectPolicy.DISABLED);
        boolean any = false;
        boolean all = true;
        for (ScalingPolicy p : rules.policies()) {
            long cutoff = now - p.periodSeconds() * 1000L;
            long start = current - sum(ups, cutoff) + sum(downs, cutoff);
            boolean allows;
            if (up) {
                double allowed = p.type() == ScalingPolicy.Type.PODS ? start + p.value() : Math.ceil(start * (1 + p.value() / 100.0));
                allows = next <= allowed;
            } else {
                double allowed = p.type() == ScalingPolicy.Type.PODS ? start - p.value() : (long) (start * (1 - p.value() / 100.0));
                allows = next >= allowed;
            }
            any |= allows;
            all &= allows;
        }
        boolean ok = rules.selectPolicy() == SelectPolicy.MIN ? all : any;
        assertThat(ok).as("%s from %d to %d under %s with events up %s down %s", up ? "scale-up" : "scale-down",
                current, next, rules, ups, downs).isTrue();
    }

    private static long sum(List<HpaHistory.ScaleEvent> events, long cutoff) {
        long total = 0;
        for (HpaHistory.ScaleEvent e : events) {
            if (e.timestamp() > cutoff) {
                total += e.replicaChange();
            }
        }
        return total;
    }
}
