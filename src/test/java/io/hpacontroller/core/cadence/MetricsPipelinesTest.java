package io.hpacontroller.core.cadence;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40's first suspected cause: metrics-server scrapes every 15 s, but the kubelet stamps each pod's sample at a time
 * of its own, so two HPAs whose pods run on different nodes read samples of one scrape stamped seconds apart.
 */
class MetricsPipelinesTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final long PERIOD = 15_000;
    /** metrics-server scrapes at 4 s + k x 15 s; each scrape is readable 1 s later. */
    private static final long SCRAPE_PHASE = 4_000;
    private static final long READABLE_AFTER_SCRAPE = 1_000;
    /** How long before the scrape each HPA's pods were stamped (its node's kubelet): 2 s and 8 s. */
    private static final long[] STAMPED_BEFORE = {2_000, 8_000};
    private static final HpaKey[] KEYS = {HpaKey.parse("shop/web"), HpaKey.parse("ops/queue")};

    /** The newest sample HPA {@code i} reads at {@code t}: the last readable scrape's, its pods' stamp. */
    private static long newestAt(int i, long t) {
        long scrape = SCRAPE_PHASE + Math.floorDiv(t - SCRAPE_PHASE - READABLE_AFTER_SCRAPE, PERIOD) * PERIOD;
        return scrape - STAMPED_BEFORE[i];
    }

    private static DecisionTrace cpuRead(HpaKey key, long at, long sampleTime) {
        MetricTrace m = new MetricTrace("Resource", "cpu", "cpu resource utilization (percentage of request)", "Utilization", 50, 40,
                sampleTime, null, 3, null, null, null, false);
        return DecisionTrace.builder(key, at).metrics(List.of(m), 0, null, 3).build();
    }

    @Test
    void oneEstimatorForThePipelineLearnsNothingUsableFromTwoNodesStampedApart() {
        SampleCadence shared = new SampleCadence(); // what main did: every HPA's newest timestamp into one estimator
        long[] phase = {3_700, 11_200};
        int usable = 0;
        for (long k = 0; k < 20; k++) {
            for (int i = 0; i < 2; i++) {
                long t = T0 + k * PERIOD + phase[i];
                shared.observe(t, newestAt(i, t));
                Optional<SampleCadence.Estimate> e = shared.estimate(t);
                if (e.isPresent() && e.get().interval() == PERIOD) {
                    usable++;
                }
            }
        }
        assertThat(usable).as("observations after which one shared estimator knew the 15 s interval").isZero();
    }

    @Test
    void eachHpaLearnsItsOwnPodsAgeAndSyncsWithinASecondOfItsNewSample() {
        MetricsPipelines pipelines = new MetricsPipelines();
        long[] next = {T0 + 3_700, T0 + 11_200};
        long[] last = new long[2];
        for (int n = 0; n < 2 * 12; n++) { // 12 periods of both
            int i = next[0] <= next[1] ? 0 : 1;
            long t = next[i];
            pipelines.observe(KEYS[i], cpuRead(KEYS[i], t, newestAt(i, t)));
            last[i] = t;
            Optional<SampleCadence.Estimate> e = pipelines.estimate(KEYS[i], t);
            long phase = e.map(x -> x.phaseIn(PERIOD, 0)).orElse(Math.floorMod(t, PERIOD));
            next[i] = FreshSlots.nextAfter(t, PERIOD, phase);
        }
        for (int i = 0; i < 2; i++) {
            SampleCadence.Estimate e = pipelines.estimate(KEYS[i], last[i]).orElseThrow();
            assertThat(e.interval()).as(KEYS[i] + "'s interval").isEqualTo(PERIOD);
            assertThat(e.converged()).as(KEYS[i] + " converged").isTrue();
            long trueAge = STAMPED_BEFORE[i] + READABLE_AFTER_SCRAPE;
            assertThat(e.upper() - trueAge).as(KEYS[i] + ": the age it syncs at, minus the true one").isBetween(0L, 1_000L);
            long sinceReadable = Math.floorMod(last[i] - SCRAPE_PHASE - READABLE_AFTER_SCRAPE, PERIOD);
            assertThat(sinceReadable).as(KEYS[i] + "'s last sync, after its new sample became readable").isBetween(0L, 1_000L);
            assertThat(newestAt(i, last[i])).as("it read the new sample").isEqualTo(newestAt(i, last[i] + PERIOD - 1_001));
        }
        assertThat(pipelines.size()).isEqualTo(2);
        pipelines.forget(KEYS[0]);
        assertThat(pipelines.estimate(KEYS[0], last[0])).isEmpty();
    }

    @Test
    void theGaugesShowTheMedianHpasEstimatePerPipeline() {
        MetricsPipelines pipelines = new MetricsPipelines();
        for (long k = 0; k < 3; k++) {
            for (int i = 0; i < 2; i++) {
                long t = T0 + k * PERIOD + 1_000 * (i + 6);
                pipelines.observe(KEYS[i], cpuRead(KEYS[i], t, newestAt(i, t)));
            }
        }
        java.util.Map<String, SampleCadence.Estimate> seen = new java.util.HashMap<>();
        pipelines.forEach(T0 + 3 * PERIOD, seen::put);
        assertThat(seen).containsOnlyKeys(MetricsPipelines.RESOURCE);
        assertThat(seen.get(MetricsPipelines.RESOURCE).interval()).isEqualTo(PERIOD);
    }
}
