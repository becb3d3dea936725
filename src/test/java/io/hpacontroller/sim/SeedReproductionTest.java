package io.hpacontroller.sim;

import io.hpacontroller.sim.SimulationResult.ReplicaChange;
import io.hpacontroller.sim.scenario.ScenarioException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 004 ("Why is HPA scaling slow"): upstream went 2 -> 4 -> 8 -> 10 in steps about 15 s apart, the first
 * about 26 s after the load began, and kept scaling after the 11 s of load were over, the status showing a
 * current utilization of 0 while desiredReplicas differed from currentReplicas.
 */
class SeedReproductionTest {

    static SimulationResult result;
    static List<ReplicaChange> changes;
    static final long LOAD_START = 30_000;
    static final long LOAD_END = 41_000;

    @BeforeAll
    static void run() throws ScenarioException {
        result = Examples.run("seed-004-burst");
        changes = result.replicaChanges("nginx-deployment");
    }

    @Test
    void theReplicasGo2To4To8To10() {
        assertThat(changes).extracting(ReplicaChange::from).startsWith(2, 4, 8);
        assertThat(changes).extracting(ReplicaChange::to).startsWith(4, 8, 10);
    }

    @Test
    void theFirstScaleUpComesAbout26SecondsAfterTheLoadBegan() {
        assertThat(result.firstLoadIncreaseMillis()).isEqualTo(LOAD_START);
        assertThat(changes.get(0).timeMillis() - LOAD_START).isBetween(23_000L, 29_000L);
        assertThat(result.summaries().get(0).firstScaleUpMillis()).isEqualTo(changes.get(0).timeMillis() - LOAD_START);
    }

    @Test
    void theStepsAreAbout15SecondsApart() {
        assertThat(changes.get(1).timeMillis() - changes.get(0).timeMillis()).isBetween(13_000L, 17_000L);
        assertThat(changes.get(2).timeMillis() - changes.get(1).timeMillis()).isBetween(13_000L, 17_000L);
    }

    @Test
    void itKeepsScalingUpAfterTheLoadHasStoppedBecauseTheStabilizationWindowHoldsTheHighRecommendation() {
        assertThat(changes.get(1).timeMillis()).isGreaterThan(LOAD_END);
        assertThat(changes.get(2).timeMillis()).isGreaterThan(LOAD_END);
        // the metrics are below target, yet the window raises the count: upstream's reason is "All metrics below target", ours names the window
        assertThat(changes.get(1).reason())
                .isEqualTo("SuccessfulRescale: the 5m scale-down window keeps the recommendation of 184 made 15s ago (ScalingLimited: ScaleUpLimit)");
        assertThat(changes.get(2).reason())
                .isEqualTo("SuccessfulRescale: the 5m scale-down window keeps the recommendation of 184 made 30s ago (ScalingLimited: TooManyReplicas)");
        assertThat(changes.get(0).reason())
                .isEqualTo("SuccessfulRescale: cpu resource utilization (percentage of request) above target (ScalingLimited: ScaleUpLimit)");
        // as in the seed's status: currentMetrics says 0 while desiredReplicas differs from currentReplicas
        TimelineRow second = row(changes.get(1).timeMillis());
        assertThat(second.metricValue()).isEqualTo("0");
        assertThat(second.desiredReplicas()).isEqualTo(8);
        assertThat(Integer.parseInt(row(changes.get(0).timeMillis()).metricValue())).isGreaterThan(1000);
    }

    @Test
    void itScalesBackToMinReplicasOnlyWhenTheFiveMinuteWindowHasPassed() {
        assertThat(changes).hasSize(4);
        ReplicaChange down = changes.get(3);
        assertThat(down.to()).isEqualTo(2);
        assertThat(down.timeMillis() - changes.get(0).timeMillis()).isBetween(300_000L, 300_000L + 15_000L);
    }

    @Test
    void theTraceSaysTheScaleDownWindowHeldTheCountUpFromTheSecondScaleUpUntilTheScaleDown() {
        List<Long> held = result.timeline().stream().filter(r -> r.trace().heldScaleDown()).map(TimelineRow::timeMillis).toList();
        // at 11 s to 41 s the window keeps 2 as well, but minReplicas 2 would too: nothing is held there
        assertThat(held).first().isEqualTo(changes.get(1).timeMillis());
        assertThat(held).last().isEqualTo(changes.get(3).timeMillis() - 15_000);
        assertThat(held).hasSize(19);
        assertThat(changes.get(1).decision()).isEqualTo("scaling up from 4 to 8: the 5m scale-down window keeps the recommendation of 184 "
                + "made 15s ago; without it: 2; the scale-up limit max(2 x 4, 4) = 8");
        assertThat(row(11_000).trace().stabilizationWindow()).isEqualTo("scaleDown");
        assertThat(row(11_000).trace().heldScaleDown()).isFalse();
    }

    @Test
    void theDescriptionNamesTheChosenOffsetsAndPutsTheSimulatedTimesNextToTheMeasuredOnes() {
        String description = result.scenario().description().replaceAll("\\s+", " ");
        assertThat(result.scenario().controller().syncPhaseMillis()).isEqualTo(11_000);
        assertThat(result.scenario().resourceMetrics().phaseMillis()).isEqualTo(9_000);
        assertThat(description).contains("the sync phase (the HPA is synced at 11 s, 26 s, 41 s,")
                .contains("metrics-server's scrape phase (scrapes at 9 s, 24 s, 39 s, 54 s,");
        // the article measured 26 s, 42 s and 57 s; the simulated times in the description are the run's
        int[] measured = {26, 42, 57};
        for (int i = 0; i < 3; i++) {
            ReplicaChange c = changes.get(i);
            assertThat(description).contains(c.from() + " -> " + c.to() + " after " + measured[i] + " s / " + (c.timeMillis() - LOAD_START) / 1000 + " s");
        }
        // the pods' usage first shows in the metrics API with the scrape at 54 s: the sync at 41 s saw none, the one at 56 s did
        long shows = result.scenario().resourceMetrics().lastScrapeAt(changes.get(0).timeMillis());
        assertThat(row(shows - 13_000).metricValue()).isEqualTo("0");
        assertThat(description).contains("the pod metrics show the load after 25 s / " + (shows - LOAD_START) / 1000 + " s");
    }

    private static TimelineRow row(long time) {
        return result.timeline().stream().filter(r -> r.timeMillis() == time).findFirst().orElseThrow();
    }
}
