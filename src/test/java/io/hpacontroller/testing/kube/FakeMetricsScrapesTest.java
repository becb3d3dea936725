package io.hpacontroller.testing.kube;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The fake metrics-server's scrape stamps (real-api-bench's data age at each query rests on them). */
class FakeMetricsScrapesTest {

    private static final FakeMetricsServer.Scrapes SCRAPES =
            new FakeMetricsServer.Scrapes(Duration.ofSeconds(15), Duration.ofSeconds(7), Duration.ofSeconds(2));
    private static final Instant QUARTER = Instant.parse("2026-11-28T05:15:00Z");

    @Test
    void aSampleIsAnsweredOnlyOnceReadableAndUntilTheNextIs() {
        assertThat(SCRAPES.newestReadable(QUARTER.plusMillis(8999))).isEqualTo(QUARTER.minusSeconds(8)); // 05:14:52, 7 s past 05:14:45
        assertThat(SCRAPES.newestReadable(QUARTER.plusSeconds(9))).isEqualTo(QUARTER.plusSeconds(7));
        assertThat(SCRAPES.newestReadable(QUARTER.plusMillis(23999))).isEqualTo(QUARTER.plusSeconds(7));
        assertThat(SCRAPES.newestReadable(QUARTER.plusSeconds(24))).isEqualTo(QUARTER.plusSeconds(22));
    }
}
