package io.hpacontroller.core.cadence;

import io.hpacontroller.core.HpaKey;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The estimator against a modelled pipeline on a real node (issue 40): metrics-server scrapes every interval at a phase;
 * the kubelet stamps each HPA's pods 1 to 10 s before a scrape, at its own housekeeping, and sometimes not at all
 * between two scrapes (the stamp stays). HPAs sync every period at their spread phase until the pipeline's estimate
 * converged, then just after the learned readable moment, as {@link FreshSlots} places them.
 */
class SampleCadenceTest {

    private static final long T0 = 1_800_000_000_000L; // an epoch millisecond, a multiple of 15 s and of 30 s
    private static final long PERIOD = 15_000;
    private static final String PIPELINE = MetricsPipelines.RESOURCE;

    /** metrics-server and the kubelet: scrapes at {@code phase + k x interval} (both may change at {@code changeAt}). */
    private static final class Node {
        long interval;
        long phase;
        final double unchanged;
        final SplittableRandom random = new SplittableRandom(40);
        /** Each HPA's newest stamp and the scrape it was read at. */
        final long[] stamp;
        final long[] scrapeSeen;

        Node(int hpas, long interval, long phase, double unchanged) {
            this.interval = interval;
            this.phase = phase;
            this.unchanged = unchanged;
            this.stamp = new long[hpas];
            this.scrapeSeen = new long[hpas];
        }

        long lastScrape(long t) {
            return phase + Math.floorDiv(t - phase, interval) * interval;
        }

        /** The newest stamp HPA {@code i} reads at {@code t}. */
        long newest(int i, long t) {
            long scrape = lastScrape(t);
            if (scrape != scrapeSeen[i]) {
                scrapeSeen[i] = scrape;
                if (stamp[i] == 0 || random.nextDouble() >= unchanged) {
                    stamp[i] = scrape - 1_000 - random.nextLong(9_001); // 1-10 s before the scrape
                }
            }
            return stamp[i];
        }
    }

    /** The HPAs on one pipeline and where they sync. */
    private static final class Hpas {
        final MetricsPipelines pipelines = new MetricsPipelines();
        final HpaKey[] keys;
        final long[] next;
        final List<List<Long>> syncs = new ArrayList<>();
        /** How long after its start (its trace's time) a sync reads its metrics and ends. */
        long readLatency;
        /** The first {@code fresh} HPAs are of the fresh cadence (the others keep their spread phase); whether they probe. */
        int fresh;
        boolean probe;

        Hpas(int n, long from) {
            keys = new HpaKey[n];
            next = new long[n];
            fresh = n;
            for (int i = 0; i < n; i++) {
                keys[i] = HpaKey.parse("ns/hpa-" + i);
                next[i] = FreshSlots.atOrAfter(from, Math.floorMod(FreshSlots.hash(keys[i].toString()), PERIOD), PERIOD);
                syncs.add(new ArrayList<>());
            }
        }

        /** Runs every sync due before {@code until}, in time order. */
        void runUntil(Node node, long until) {
            while (true) {
                int i = 0;
                for (int j = 1; j < keys.length; j++) {
                    i = next[j] < next[i] ? j : i;
                }
                long t = next[i];
                if (t >= until) {
                    return;
                }
                pipelines.observe(keys[i], PIPELINE, t, t + readLatency, node.newest(i, t + readLatency));
                syncs.get(i).add(t);
                if (i >= fresh) { // a spread HPA: its phase
                    next[i] = t + PERIOD;
                    continue;
                }
                OptionalLong slot = FreshSlots.next(pipelines.estimate(keys[i], t, PERIOD), keys[i].toString(), t, PERIOD, 2_000, 2_000, probe);
                next[i] = slot.isPresent() ? slot.getAsLong()
                        : FreshSlots.atOrAfter(t + PERIOD, Math.floorMod(FreshSlots.hash(keys[i].toString()), PERIOD), PERIOD);
            }
        }

        Optional<SampleCadence.Estimate> estimate(long now) {
            return pipelines.estimate(keys[0], now, PERIOD);
        }

        /** The first instant (in steps of a second) from {@code from} the estimate is converged at {@code phase} (within 2 s after it). */
        long convergedAt(Node node, long from, long until, long interval) {
            for (long t = from; t < until; t += 1000) {
                runUntil(node, t);
                Optional<SampleCadence.Estimate> e = estimate(t);
                if (e.isPresent() && e.get().converged() && e.get().interval() == interval
                        && Math.floorMod(e.get().phase() - node.phase, interval) <= 2_000) {
                    return t;
                }
            }
            return -1;
        }
    }

    @Test
    void thirtyHpasConvergeFromAColdStartWithinSixPeriodsAndThenSyncWithinTheWindowAfterTheScrape() {
        // the real node's case: stamps 1-10 s before each scrape, a fifth of them unchanged across a scrape
        Node node = new Node(30, 15_000, 4_000, 0.2);
        Hpas hpas = new Hpas(30, T0);
        long at = hpas.convergedAt(node, T0, T0 + 20 * PERIOD, 15_000);
        assertThat(at).as("converged").isPositive();
        assertThat(at - T0).as("within six periods of the first syncs (the intervals must span 60 s)").isLessThanOrEqualTo(6 * PERIOD);
        hpas.runUntil(node, at + 4 * PERIOD);
        long from = at + 2 * PERIOD;
        for (int i = 0; i < 30; i++) {
            List<Long> s = hpas.syncs.get(i);
            for (int j = 1; j < s.size(); j++) {
                assertThat(s.get(j) - s.get(j - 1)).as("no two syncs of an HPA closer than the period").isGreaterThanOrEqualTo(PERIOD);
            }
            assertThat(s.stream().filter(t -> t >= from).toList()).as("HPA %s syncs within 2 s (the estimate) + 2 s (the window) after the scrape", i)
                    .isNotEmpty().allSatisfy(t -> assertThat(Math.floorMod(t - node.phase, 15_000)).isLessThan(4_000));
        }
    }

    @Test
    void aSyncThatReadsItsMetricsAfterItStartedDoesNotPullThePhaseBeforeTheScrape() {
        // the real node's run: a sync that started 0.3 s before the scrape read the new sample, so its start proved nothing
        // of the scrape; learned from the starts, the phase came before the scrape and the fresh syncs read a period-old sample
        Node node = new Node(30, 15_000, 4_000, 0.2);
        Hpas hpas = new Hpas(30, T0);
        hpas.readLatency = 700;
        long at = hpas.convergedAt(node, T0, T0 + 20 * PERIOD, 15_000);
        assertThat(at).as("converged at or after the scrape (within 2 s)").isPositive();
        hpas.runUntil(node, at + 4 * PERIOD);
        long from = at + 2 * PERIOD;
        for (int i = 0; i < 30; i++) {
            assertThat(hpas.syncs.get(i).stream().filter(t -> t >= from).toList()).as("HPA %s reads the sample of the scrape just before it", i)
                    .isNotEmpty().allSatisfy(t -> assertThat(Math.floorMod(t + hpas.readLatency - node.phase, 15_000)).isLessThan(5_000));
        }
    }

    @Test
    void aLoneHpaConvergesOnlyWhenItsPhaseFollowsTheScrapeClosely() {
        // a lone HPA at a fixed phase proves the scrape between its new stamp and its sync, nothing nearer: it keeps its
        // spread phase unless that comes within about a second after the scrape (then it converges as the pool does)
        long phaseOfHpa0 = Math.floorMod(FreshSlots.hash("ns/hpa-0"), PERIOD);
        Node far = new Node(1, 15_000, phaseOfHpa0 - 6_000, 0);
        assertThat(new Hpas(1, T0).convergedAt(far, T0, T0 + 20 * PERIOD, 15_000)).as("6 s after the scrape: never").isEqualTo(-1);
        Node near = new Node(1, 15_000, phaseOfHpa0 - 300, 0);
        long at = new Hpas(1, T0).convergedAt(near, T0, T0 + 20 * PERIOD, 15_000);
        assertThat(at - T0).as("0.3 s after the scrape: in six periods").isBetween(0L, 6 * PERIOD);
    }

    @Test
    void aLoneHpaProbesTheArcAndConvergesWhenItsPhaseIsWithinFiveAndAHalfSecondsAfterTheScrape() {
        // issue 40: alone on its pipeline, an HPA at a fixed phase proves nothing nearer the scrape than its own sync; it
        // probes: once to the arc's lower end, then 1.5 s up it a period apart, until it reads the new sample
        long phaseOfHpa0 = Math.floorMod(FreshSlots.hash("ns/hpa-0"), PERIOD);
        for (long after : new long[] {0, 2_000, 4_000, 5_500}) {
            Node node = new Node(1, 15_000, phaseOfHpa0 - after, 0.2);
            Hpas hpas = new Hpas(1, T0);
            hpas.probe = true;
            assertConvergesThenSyncsAfterTheScrape(node, hpas, 12, after + " ms after the scrape");
        }
    }

    @Test
    void aFreshHpaBesideThreeAtFixedPhasesProbesAndConverges() {
        // the real node's Seed004NodeIT: four HPAs on the pipeline, three at their spread phases (one of them each 5 s)
        for (long scrape : new long[] {1_000, 4_500, 8_000, 11_500, 14_000}) {
            Node node = new Node(4, 15_000, scrape, 0.2);
            Hpas hpas = new Hpas(4, T0);
            hpas.fresh = 1;
            hpas.probe = true;
            hpas.next[1] = T0 + 3_300;
            hpas.next[2] = T0 + 7_700;
            hpas.next[3] = T0 + 12_100;
            assertConvergesThenSyncsAfterTheScrape(node, hpas, 10, "the scrape at " + scrape + " ms");
        }
    }

    /** HPA 0 converges within {@code periods} periods of T0, then syncs paced and within 2 s + the window after each scrape. */
    private static void assertConvergesThenSyncsAfterTheScrape(Node node, Hpas hpas, int periods, String where) {
        long at = hpas.convergedAt(node, T0, T0 + 20 * PERIOD, 15_000);
        assertThat(at - T0).as("%s: converged within %d periods", where, periods).isBetween(0L, periods * PERIOD);
        hpas.runUntil(node, at + 10 * PERIOD);
        assertPaced(hpas.syncs.get(0));
        assertThat(hpas.syncs.get(0).stream().filter(t -> t >= at + PERIOD).toList()).as("then within 2 s + the window after the scrape")
                .hasSizeGreaterThanOrEqualTo(8).allSatisfy(t -> assertThat(Math.floorMod(t - node.phase, 15_000)).isLessThanOrEqualTo(4_000));
    }

    private static void assertPaced(List<Long> syncs) {
        for (int j = 1; j < syncs.size(); j++) {
            assertThat(syncs.get(j) - syncs.get(j - 1)).as("a period apart at least, two at most").isBetween(PERIOD, 2 * PERIOD - 1);
        }
    }

    @Test
    void followsAResolutionChangeFrom15sTo30sAndAPhaseChange() {
        Node node = new Node(30, 15_000, 4_000, 0.2);
        Hpas hpas = new Hpas(30, T0);
        long at = hpas.convergedAt(node, T0, T0 + 20 * PERIOD, 15_000);
        assertThat(at).isPositive();
        node.interval = 30_000; // metrics-server restarted with --metric-resolution=30s, scraping at 4 s + k x 30 s
        long at30 = hpas.convergedAt(node, at, at + 40 * PERIOD, 30_000);
        assertThat(at30).as("learned 30 s").isPositive();
        assertThat(at30 - at).as("within 12 periods of 15 s (6 of 30 s)").isLessThanOrEqualTo(12 * PERIOD);
        node.phase = 13_000; // and then restarted at another phase
        long moved = hpas.convergedAt(node, at30, at30 + 40 * PERIOD, 30_000);
        assertThat(moved).as("learned the new phase").isPositive();
        assertThat(moved - at30).as("within 12 periods of 15 s").isLessThanOrEqualTo(12 * PERIOD);
    }

    @Test
    void aConvergedPhaseStaysPutForAnHourOfFreshSyncsWhileThePipelineDoesNotChange() {
        // tools/real-api-bench's run 3 (1,000 fresh HPAs, samples stamped at 7 s past each quarter minute and readable 1 s
        // later): the phase crept 8.1, 8.2, 8.3 s, 0.1 s a minute, the fresh syncs' own proofs ending just after it (the
        // read's latency, rounded up to a bin) and becoming the arc's upper end, until the arc passed 2 s and every HPA
        // fell back to its spread phase (and skipped up to a period, twice)
        int n = 250;
        long window = 7_500; // the pipeline's window at 1,000 HPAs (PhasedCadence); 250 of them are enough to show it
        long latency = 50;
        MetricsPipelines pipelines = new MetricsPipelines();
        HpaKey[] keys = new HpaKey[n];
        java.util.PriorityQueue<long[]> due = new java.util.PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 0; i < n; i++) {
            keys[i] = HpaKey.parse("bench-" + i % 10 + "/app-" + i);
            due.add(new long[] {FreshSlots.atOrAfter(T0, Math.floorMod(FreshSlots.hash(keys[i].toString()), PERIOD), PERIOD), i});
        }
        long[] last = new long[n];
        long end = T0 + 3_600_000;
        long first = -1;
        long phase = 0;
        long moved = Long.MAX_VALUE;
        while (true) {
            long[] x = due.poll();
            long t = x[0];
            int i = (int) x[1];
            if (t >= end) {
                break;
            }
            long readAt = t + latency;
            long stamp = Math.floorDiv(readAt - 8_000, PERIOD) * PERIOD + 7_000; // the newest sample readable then
            pipelines.observe(keys[i], PIPELINE, t, readAt, stamp);
            Optional<SampleCadence.Estimate> e = pipelines.estimate(keys[i], t, PERIOD);
            if (first < 0 && e.isPresent() && e.get().converged()) {
                first = t;
                phase = e.get().phase();
                moved = t + 3 * PERIOD; // each HPA moved to its fresh slot by then (at most two periods after its last spread sync)
            }
            if (first >= 0) {
                assertThat(e).as("at %d s", (t - T0) / 1000).hasValueSatisfying(c -> {
                    assertThat(c.converged()).isTrue();
                    assertThat(c.interval()).isEqualTo(PERIOD);
                });
                assertThat(Math.abs(e.get().phase() - phase)).as("the phase at %d s, converged at %d ms", (t - T0) / 1000, phase).isLessThanOrEqualTo(200);
            }
            if (t > moved) {
                assertThat(t - last[i]).as("HPA %s at %d s: a period after its last sync (its slot did not move, none skipped)", i, (t - T0) / 1000).isEqualTo(PERIOD);
            }
            last[i] = t;
            OptionalLong slot = FreshSlots.next(e, keys[i].toString(), t, PERIOD, window, 2_000, false);
            due.add(new long[] {slot.isPresent() ? slot.getAsLong()
                    : FreshSlots.atOrAfter(t + PERIOD, Math.floorMod(FreshSlots.hash(keys[i].toString()), PERIOD), PERIOD), i});
        }
        assertThat(first - T0).as("converged within 8 periods").isBetween(0L, 8 * PERIOD);
        assertThat(phase).as("just after the samples become readable (8 s)").isBetween(8_000L, 8_200L);
    }

    @Test
    void aProofAlmostAPeriodWideWhoseEndsShareABinCoversEveryBinNotOne() {
        // tools/real-api-bench: samples readable 9 s past each quarter minute; a spread sync that started late (7.05 s) read
        // the old sample and the next, on time (22.02 s), the new one: (7.05, 22.02] wraps to its own 100 ms bin. Counted
        // in that bin alone it made a 100 ms arc at 7.1 s, converged before the sample was readable
        SampleCadence cadence = new SampleCadence();
        for (int k = 0; k < 8; k++) {
            long q = T0 + k * 15_000L;
            for (int i = 0; i < 5; i++) {
                cadence.observe(q + 7_000, q + 9_100 + i * 100, q + 7_000);
            }
            if (k % 2 == 0) {
                cadence.observe(q + 7_050, q + 22_020, q + 22_000);
            }
        }
        SampleCadence.Estimate e = cadence.estimate(T0 + 8 * 15_000L).orElseThrow();
        assertThat(e.interval()).isEqualTo(15_000);
        assertThat(e.phase()).as("the arc's upper end, where the syncs go: not before the sample is readable").isGreaterThanOrEqualTo(9_000);
        assertThat(e.converged()).as("the proofs agree on (7.0, 9.2], over 2 s wide").isFalse();
    }

    @Test
    void ignoresAnHpaWhoseStampsGoBackwardsOrJumpIntoTheFuture() {
        MetricsPipelines pipelines = new MetricsPipelines();
        HpaKey bad = HpaKey.parse("ns/broken");
        HpaKey good = HpaKey.parse("ns/good");
        // the broken source's stamps alternate between the future and the past: every sync of it is ignored
        for (long t = T0; t < T0 + 20 * PERIOD; t += PERIOD) {
            pipelines.observe(bad, PIPELINE, t, t, (t / PERIOD) % 2 == 0 ? t + 60_000 : t - 600_000);
        }
        assertThat(pipelines.estimate(bad, T0 + 20 * PERIOD)).as("nothing learned from it").isEmpty();
        pipelines.observe(good, PIPELINE, T0 + 20 * PERIOD, T0 + 20 * PERIOD, T0 + 20 * PERIOD - 3_000);
        assertThat(pipelines.estimate(good, T0 + 20 * PERIOD)).as("nor did the pipeline").isEmpty();
        // a source that never changes proves no scrape
        for (long t = T0 + 21 * PERIOD; t < T0 + 40 * PERIOD; t += 1000) {
            pipelines.observe(good, PIPELINE, t, t, T0 + 20 * PERIOD - 3_000);
        }
        assertThat(pipelines.estimate(good, T0 + 40 * PERIOD)).as("a stamp that never changes").isEmpty();
    }
}
