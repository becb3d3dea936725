package io.hpacontroller.sim;

import io.hpacontroller.sim.scenario.LoadTrace;
import io.hpacontroller.sim.scenario.MetricsPipeline;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The small parts of the model: the trace, the counters, the scrape schedule. */
class ModelPartsTest {

    @Test
    void aStepTraceHoldsEachPointAndALinearTraceInterpolates() {
        List<LoadTrace.Point> points = List.of(new LoadTrace.Point(10_000, 100), new LoadTrace.Point(20_000, 300), new LoadTrace.Point(30_000, 0));
        LoadTrace step = new LoadTrace(points, LoadTrace.Interpolation.STEP, "rps", null);
        LoadTrace linear = new LoadTrace(points, LoadTrace.Interpolation.LINEAR, "rps", null);

        assertThat(step.demandAt(0)).isEqualTo(100);
        assertThat(step.demandAt(15_000)).isEqualTo(100);
        assertThat(step.demandAt(20_000)).isEqualTo(300);
        assertThat(step.demandAt(99_000)).isEqualTo(0);
        assertThat(linear.demandAt(15_000)).isEqualTo(200);
        assertThat(linear.demandAt(25_000)).isEqualTo(150);
        assertThat(step.firstIncrease()).hasValue(20_000);
        assertThat(linear.firstIncrease()).hasValue(10_000);
        assertThat(new LoadTrace(List.of(new LoadTrace.Point(0, 5), new LoadTrace.Point(9, 1)), LoadTrace.Interpolation.STEP, "", null)
                .firstIncrease()).isEmpty();
    }

    @Test
    void aCounterAveragesItsRateOverAWindowAndForgetsBeyondItsHorizon() {
        UsageCounter c = new UsageCounter(0, 30_000);
        for (long t = 1000; t <= 100_000; t += 1000) {
            c.add(t, t <= 50_000 ? 100 : 400); // the rate held during the second that ends at t
        }
        assertThat(c.average(85_000, 100_000)).isCloseTo(400, within(1e-9));
        assertThat(c.average(80_000, 90_000)).isCloseTo(400, within(1e-9));
        assertThat(c.average(60_000, 90_000)).isCloseTo(400, within(1e-9)); // clamped to what it still remembers
        assertThat(c.average(0, 10)).isZero(); // long forgotten
        assertThat(c.since()).isGreaterThanOrEqualTo(100_000 - 31_000);

        UsageCounter d = new UsageCounter(0, 60_000);
        for (long t = 1000; t <= 60_000; t += 1000) {
            d.add(t, t <= 30_000 ? 100 : 400);
        }
        assertThat(d.average(20_000, 40_000)).isCloseTo(250, within(1e-9));
        assertThat(d.average(29_500, 30_500)).isCloseTo(250, within(1e-9));
    }

    @Test
    void scrapesFollowThePhaseAndTheSampleIsDelayed() {
        MetricsPipeline p = new MetricsPipeline(15_000, 15_000, 10_000, 9_000);
        assertThat(p.lastScrapeAt(9_000)).isEqualTo(9_000);
        assertThat(p.lastScrapeAt(23_999)).isEqualTo(9_000);
        assertThat(p.lastScrapeAt(24_000)).isEqualTo(24_000);
        assertThat(p.lastScrapeAt(0)).isEqualTo(-6_000);
        assertThat(p.sampleEndAt(26_000)).isEqualTo(14_000);
        assertThat(p.horizonMillis()).isEqualTo(40_000);
    }
}
