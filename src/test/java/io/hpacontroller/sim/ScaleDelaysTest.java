package io.hpacontroller.sim;

import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.sim.ScaleDelays.Cause;
import io.hpacontroller.sim.ScaleDelays.Delay;
import io.hpacontroller.sim.ScaleDelays.Step;
import io.hpacontroller.sim.ScaleDelays.Sync;
import io.hpacontroller.sim.SimulationResult.ReplicaChange;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What delayed each scale step, from syncs as their traces read and the core's proposals without parts of the way. */
class ScaleDelaysTest {

    /** A sync that decided {@code decided} from a recommendation, stabilized, with the proposals without the lag, unready pods, the cap. */
    private static Sync sync(long s, int recommendation, int stabilized, int decided, List<String> constraints, int fresh, int ready, int uncapped,
                             int asked) {
        return new Sync(s * 1000, false, recommendation, recommendation, stabilized, decided, constraints, null, fresh, ready, uncapped, asked);
    }

    private static ReplicaChange change(long s, int from, int to) {
        return new ReplicaChange(s * 1000, from, to, "", "");
    }

    /** The demand asks for {@code values[i]} from {@code times[i]} seconds. */
    private static ScaleDelays.Asked asked(long[] times, int[] values) {
        ScaleDelays.Asked a = new ScaleDelays.Asked();
        for (int i = 0; i < times.length; i++) {
            a.at(times[i] * 1000, values[i]);
        }
        return a;
    }

    private static Delay delay(Cause cause, String what, long s) {
        return new Delay(cause, what, s * 1000);
    }

    @Test
    void seed004SBurstWaitsForTheSyncThenTheMetricsThenTheScaleUpLimit() {
        // the burst asks for 10 from 30 s to 41 s; the metrics show it at the 56 s sync; the legacy limit doubles per sync
        ScaleDelays.Asked asked = asked(new long[] {0, 30, 41}, new int[] {2, 10, 2});
        List<Sync> syncs = List.of(
                sync(26, 2, 2, 2, List.of(), 2, 2, 2, 2),
                sync(41, 2, 2, 2, List.of(), 184, 184, 189, 2), // sampled at 41 s the window holds 11 s of the burst
                sync(56, 184, 184, 4, List.of(Normalization.SCALE_UP_LIMIT), 2, 2, 2, 2),
                sync(71, 2, 184, 8, List.of(Normalization.STABILIZATION_WINDOW, Normalization.SCALE_UP_LIMIT), 2, 2, 2, 2),
                sync(86, 2, 184, 10, List.of(Normalization.STABILIZATION_WINDOW, Normalization.MAX_REPLICAS), 2, 2, 2, 2));

        List<Step> steps = ScaleDelays.of(List.of(change(56, 2, 4), change(71, 4, 8), change(86, 8, 10)), syncs, asked);

        assertThat(steps).extracting(Step::askedAtMillis).containsExactly(30_000L, 30_000L, 30_000L);
        assertThat(steps.get(0).delays()).containsExactly(delay(Cause.WAITING_FOR_THE_SYNC, "waiting for the sync", 11),
                delay(Cause.METRICS_LAG, "metrics lag", 15));
        assertThat(steps.get(2).delays()).containsExactly(delay(Cause.WAITING_FOR_THE_SYNC, "waiting for the sync", 11),
                delay(Cause.METRICS_LAG, "metrics lag", 15), delay(Cause.CAP, "the scale-up limit", 30));
        assertThat(steps.get(2).lateMillis()).isEqualTo(56_000);
    }

    @Test
    void eachSyncIsHeldByTheFirstPartOfTheWayWithoutWhichTheMetricsWouldHaveAskedForTheStep() {
        List<String> none = List.of();
        // fresh metrics would have asked for 8: the pipeline's lag held it
        assertThat(ScaleDelays.held(sync(0, 4, 4, 4, none, 8, 8, 9, 9), 8, true, 15_000).cause()).isEqualTo(Cause.METRICS_LAG);
        // fresh ones not, but with every pod Ready they would have: the unready pods held it
        assertThat(ScaleDelays.held(sync(0, 4, 4, 4, none, 5, 8, 9, 9), 8, true, 15_000).cause()).isEqualTo(Cause.PODS_NOT_READY);
        // only uncapped: the pods serve their capacity, the metric cannot show more
        assertThat(ScaleDelays.held(sync(0, 5, 5, 5, none, 5, 6, 9, 9), 8, true, 15_000).cause()).isEqualTo(Cause.METRIC_AT_ITS_CEILING);
        // the demand asks, but the metric's window does not hold enough of it yet
        assertThat(ScaleDelays.held(sync(0, 4, 4, 4, none, 4, 4, 4, 9), 8, true, 15_000).cause()).isEqualTo(Cause.METRICS_LAG);
        // nothing asks any more
        assertThat(ScaleDelays.held(sync(0, 4, 4, 4, none, 4, 4, 4, 4), 8, true, 15_000)).isNull();
        // the recommendation asked; the windows and limits held it
        assertThat(ScaleDelays.held(sync(0, 9, 4, 4, List.of(Normalization.STABILIZATION_WINDOW), 9, 9, 9, 9), 8, true, 15_000).what())
                .isEqualTo("the scale-up stabilization window");
        assertThat(ScaleDelays.held(sync(0, 2, 6, 6, List.of(Normalization.STABILIZATION_WINDOW), 2, 2, 2, 2), 2, false, 15_000).what())
                .isEqualTo("the scale-down stabilization window");
        assertThat(ScaleDelays.held(sync(0, 2, 2, 4, List.of(Normalization.SCALE_DOWN_LIMIT), 2, 2, 2, 2), 2, false, 15_000).what())
                .isEqualTo("the scale-down limit");
        Sync failed = new Sync(0, true, -1, -1, -1, -1, none, null, 9, 9, 9, 9);
        assertThat(ScaleDelays.held(failed, 8, true, 15_000).cause()).isEqualTo(Cause.FAILED_SYNC);
    }

    @Test
    void aStepTheDemandNeverAskedForSaysWhatDid() {
        ScaleDelays.Asked asked = asked(new long[] {0}, new int[] {2});
        Sync rule = new Sync(11_000, false, 2, 2, 2, 10, List.of(Normalization.MIN_REPLICAS), "a scheduled rule", 2, 2, 2, 2);

        List<Step> steps = ScaleDelays.of(List.of(change(11, 2, 10)), List.of(rule), asked);

        assertThat(steps).singleElement().satisfies(s -> {
            assertThat(s.askedAtMillis()).isEqualTo(-1);
            assertThat(s.unasked()).isEqualTo("a scheduled rule");
            assertThat(s.delays()).isEmpty();
        });
    }

    @Test
    void aStepAfterTheDemandStoppedAskingWithNothingCarryingItOnWasNotAskedForByTheDemand() {
        // the demand asked for 16 for a minute yesterday; at the sync after it nothing showed it any more; today the
        // prediction raises the count to 16 before the demand asks again
        ScaleDelays.Asked asked = asked(new long[] {0, 3600, 3660}, new int[] {15, 16, 15});
        List<Sync> syncs = List.of(sync(3615, 15, 15, 15, List.of(), 16, 16, 16, 16), sync(3675, 15, 15, 15, List.of(), 15, 15, 15, 15),
                new Sync(90_000_000, false, 16, 15, 16, 16, List.of(), "predictive scaling", 15, 15, 15, 15));

        List<Step> steps = ScaleDelays.of(List.of(change(90_000, 15, 16)), syncs, asked);

        assertThat(steps).singleElement().satisfies(s -> {
            assertThat(s.askedAtMillis()).isEqualTo(-1);
            assertThat(s.unasked()).isEqualTo("predictive scaling");
        });
    }

    @Test
    void theDelayCountsOnlyFromWhenTheCountLastFellBelowTheStep() {
        // the demand asks for 6 from 0 s; the count is 6 until it falls to 4 at 30 s, and goes back to 6 at 60 s
        ScaleDelays.Asked asked = asked(new long[] {0}, new int[] {6});
        List<Sync> syncs = List.of(sync(45, 4, 4, 4, List.of(), 6, 6, 6, 6));

        List<Step> steps = ScaleDelays.of(List.of(change(30, 6, 4), change(60, 4, 6)), syncs, asked);

        assertThat(steps.get(1).askedAtMillis()).isEqualTo(30_000);
        assertThat(steps.get(1).delays()).containsExactly(delay(Cause.WAITING_FOR_THE_SYNC, "waiting for the sync", 15),
                delay(Cause.METRICS_LAG, "metrics lag", 15));
    }
}
