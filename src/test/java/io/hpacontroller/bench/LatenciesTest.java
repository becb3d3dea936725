package io.hpacontroller.bench;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The bench's percentiles (HdrHistogram) against the exact nearest-rank ones it replaced, within its 3 digits. */
class LatenciesTest {

    @Test
    void percentilesMatchTheExactNearestRankWithinAThousandth() {
        Random random = new Random(36);
        long[] nanos = new long[20_000];
        for (int i = 0; i < nanos.length; i++) {
            // a reconcile's shape: mostly 1-3 ms, a tail to 200 ms
            nanos[i] = (long) (1_000_000 + random.nextDouble() * 2_000_000 + (random.nextInt(50) == 0 ? random.nextDouble() * 200_000_000 : 0));
        }
        Histogram h = Bench.latencies();
        IntStream.range(0, 4).parallel().forEach(t -> {
            for (int i = t; i < nanos.length; i += 4) {
                h.recordValue(nanos[i]);
            }
        });
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        assertThat(h.getTotalCount()).isEqualTo(nanos.length);
        for (double p : new double[] {50, 90, 99, 99.9, 100}) {
            long exact = sorted[Math.max(0, (int) Math.ceil(p / 100 * sorted.length) - 1)];
            assertThat((double) h.getValueAtPercentile(p)).as("p%s", p).isCloseTo(exact, within(exact * 0.001));
        }
        assertThat(Bench.latencies().getValueAtPercentile(99)).as("empty").isZero();
    }
}
