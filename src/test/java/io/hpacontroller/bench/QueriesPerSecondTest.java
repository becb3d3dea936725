package io.hpacontroller.bench;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class QueriesPerSecondTest {

    @Test
    void spreadOfTheSteadyWindowCountsSecondsWithoutQueriesAsIdle() {
        Map<Long, Long> series = new HashMap<>();
        series.put(100L, 300L); // start-up burst, before the steady window
        for (long s = 110; s < 120; s++) {
            if (s % 5 != 0) {
                series.put(s, s - 100); // 11..19 except 15; 110 and 115 are idle
            }
        }
        Map<String, String> f = QueriesPerSecond.figures(series, 100, 120, 110);

        assertThat(f.get("metrics_queries_peak_per_second_whole_run")).isEqualTo("300");
        // steady: 0 0 11 12 13 14 16 17 18 19
        assertThat(f.get("metrics_queries_per_second_p50")).isEqualTo("13");
        assertThat(f.get("metrics_queries_per_second_p90")).isEqualTo("18");
        assertThat(f.get("metrics_queries_per_second_peak")).isEqualTo("19");
        assertThat(f.get("metrics_queries_p90_over_p50")).isEqualTo(String.format("%.2f", 18 / 13.0));
        assertThat(f.get("idle_seconds_share")).isEqualTo(String.format("%.2f", 0.2));
        assertThat(f.get("metrics_queries_per_second").split(" ")).hasSize(20).startsWith("300", "0");
    }

    @Test
    void withoutASteadyWindowTheSpreadIsNotAvailable() {
        Map<String, String> f = QueriesPerSecond.figures(Map.of(5L, 7L), 5, 8, -1);

        assertThat(f.get("metrics_queries_peak_per_second_whole_run")).isEqualTo("7");
        assertThat(f.get("metrics_queries_per_second_p50")).isEqualTo("n/a");
        assertThat(f.get("idle_seconds_share")).isEqualTo("n/a");
        assertThat(f.get("metrics_queries_per_second")).isEqualTo("7 0 0");
    }
}
