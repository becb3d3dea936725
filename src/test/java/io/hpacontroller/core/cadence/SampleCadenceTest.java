package io.hpacontroller.core.cadence;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The estimator against a modelled pipeline: scrapes every interval at a phase, each sample {@code age} old when readable. */
class SampleCadenceTest {

    private static final long T0 = 1_800_000_000_000L; // an epoch millisecond, a multiple of 15 s and of 30 s

    /** A metrics-server: scrapes at {@code phase + k * interval}, the sample stamped {@code age} before the scrape. */
    private record Pipeline(long interval, long phase, long age) {
        long newestAt(long t) {
            long scrape = phase + Math.floorDiv(t - phase, interval) * interval;
            return scrape - age;
        }

        long readableAfter(long t) {
            long scrape = phase + Math.floorDiv(t - phase, interval) * interval;
            return scrape == t ? t : scrape + interval;
        }
    }

    /** One HPA synced every {@code period} at the instants the estimate asks for (its own phase while there is none). */
    private static long syncAlone(SampleCadence c, Pipeline p, long from, int syncs, long period) {
        long t = from;
        for (int i = 0; i < syncs; i++) {
            c.observe(t, p.newestAt(t));
            Optional<SampleCadence.Estimate> e = c.estimate(t);
            long next = t + period;
            if (e.isPresent()) { // the first instant at or after next with the estimate's phase
                long phase = e.get().phaseIn(period, 0);
                next = next + Math.floorMod(phase - next, period);
            }
            t = next;
        }
        return t;
    }

    @Test
    void aLoneHpaConvergesFromAColdStartInAFewPeriods() {
        Pipeline p = new Pipeline(15_000, T0 + 9_000, 10_000);
        SampleCadence c = new SampleCadence();
        long t = syncAlone(c, p, T0 + 3_700, 8, 15_000);
        SampleCadence.Estimate e = c.estimate(t).orElseThrow();
        assertThat(e.interval()).isEqualTo(15_000);
        assertThat(e.converged()).isTrue();
        assertThat(e.upper()).isBetween(10_000L, 11_000L); // true age 10 s: within the converged bound
        long sync = e.readableAt() + 2 * 15_000;
        assertThat(p.newestAt(sync)).as("the sync at the learned instant reads the new sample").isEqualTo(p.newestAt(sync + 14_000));
        assertThat(sync - p.readableAfter(sync - 14_999)).isBetween(0L, 1_000L);
    }

    @Test
    void manyHpasSpreadOverThePeriodConvergeInOnePeriod() {
        Pipeline p = new Pipeline(15_000, T0 + 4_000, 7_300);
        SampleCadence c = new SampleCadence();
        for (long t = T0; t < T0 + 30_000; t += 150) { // 100 HPAs a period, one every 150 ms
            c.observe(t, p.newestAt(t));
        }
        SampleCadence.Estimate e = c.estimate(T0 + 30_000).orElseThrow();
        assertThat(e.converged()).isTrue();
        assertThat(e.upper() - 7_300).isBetween(0L, 150L);
        assertThat(e.lower()).isLessThan(7_300);
    }

    @Test
    void followsAResolutionChangeFrom15sTo30s() {
        SampleCadence c = new SampleCadence();
        Pipeline fast = new Pipeline(15_000, T0 + 9_000, 10_000);
        long t = syncAlone(c, fast, T0, 10, 15_000);
        assertThat(c.estimate(t).orElseThrow().interval()).isEqualTo(15_000);
        Pipeline slow = new Pipeline(30_000, T0 + 9_000, 10_000); // metrics-server restarted with --metric-resolution=30s
        t = syncAlone(c, slow, t, 24, 15_000); // 12 samples of 30 s: 4 to learn the interval, then the bisection
        SampleCadence.Estimate e = c.estimate(t).orElseThrow();
        assertThat(e.interval()).isEqualTo(30_000);
        assertThat(e.converged()).isTrue();
        assertThat(e.upper()).isBetween(10_000L, 11_000L);
        long sync = e.readableAt() + 4 * 30_000;
        assertThat(sync - slow.readableAfter(sync - 29_999)).isBetween(0L, 1_000L);
    }

    @Test
    void aPhaseChangeIsLearnedAgainInAFewPeriods() {
        SampleCadence c = new SampleCadence();
        long t = syncAlone(c, new Pipeline(15_000, T0 + 9_000, 10_000), T0, 10, 15_000);
        Pipeline moved = new Pipeline(15_000, T0 + 2_000, 10_000); // metrics-server restarted: scrapes 7 s earlier
        t = syncAlone(c, moved, t, 6, 15_000);
        SampleCadence.Estimate e = c.estimate(t).orElseThrow();
        assertThat(e.converged()).isTrue();
        long sync = e.readableAt() + 15_000;
        assertThat(sync - moved.readableAfter(sync - 14_999)).isBetween(0L, 1_000L);
    }

    @Test
    void aSlowerPipelineIsLearnedAgainAfterAStaleRead() {
        SampleCadence c = new SampleCadence();
        long t = syncAlone(c, new Pipeline(15_000, T0 + 9_000, 10_000), T0, 10, 15_000);
        Pipeline slower = new Pipeline(15_000, T0 + 12_000, 13_000); // the same samples, scraped 3 s later
        t = syncAlone(c, slower, t, 8, 15_000);
        SampleCadence.Estimate e = c.estimate(t).orElseThrow();
        assertThat(e.converged()).isTrue();
        assertThat(e.upper()).isBetween(13_000L, 14_000L);
    }

    @Test
    void ignoresASourceWhoseTimestampsGoBackwards() {
        SampleCadence c = new SampleCadence();
        Pipeline p = new Pipeline(15_000, T0 + 9_000, 10_000);
        long t = syncAlone(c, p, T0, 10, 15_000);
        assertThat(c.estimate(t)).isPresent();
        c.observe(t + 1_000, p.newestAt(t) - 60_000); // a minute back
        assertThat(c.estimate(t + 1_000)).isEmpty();
        syncAlone(c, p, t + 15_000, 4, 15_000); // well-behaved again, but within the quarantine
        assertThat(c.estimate(t + 75_000)).isEmpty();
        long after = syncAlone(c, p, t + SampleCadence.QUARANTINE_MILLIS + 15_000, 10, 15_000);
        assertThat(c.estimate(after)).as("learned again after the quarantine").isPresent();
    }

    @Test
    void ignoresASourceWhoseTimestampsJumpIntoTheFuture() {
        SampleCadence c = new SampleCadence();
        Pipeline p = new Pipeline(15_000, T0 + 9_000, 10_000);
        long t = syncAlone(c, p, T0, 10, 15_000);
        c.observe(t, t + 3_600_000); // an hour ahead
        assertThat(c.estimate(t)).isEmpty();
        assertThat(c.estimate(t + 60_000)).isEmpty();
    }

    @Test
    void aSourceThatNeverChangesGivesNoEstimate() {
        SampleCadence c = new SampleCadence();
        Pipeline p = new Pipeline(15_000, T0 + 9_000, 10_000);
        long t = syncAlone(c, p, T0, 10, 15_000);
        long frozen = p.newestAt(t);
        for (int i = 1; i <= 8; i++) {
            c.observe(t + i * 15_000L, frozen);
        }
        assertThat(c.estimate(t + 8 * 15_000L)).isEmpty();
        SampleCadence none = new SampleCadence();
        none.observe(T0, 0); // no timestamp
        assertThat(none.estimate(T0)).isEmpty();
    }
}
