package io.hpacontroller.sim.scenario;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DurationTextTest {

    @Test
    void unitsAndPlainSeconds() {
        assertThat(DurationText.parseMillis("15s")).isEqualTo(15_000);
        assertThat(DurationText.parseMillis("500ms")).isEqualTo(500);
        assertThat(DurationText.parseMillis("5m")).isEqualTo(300_000);
        assertThat(DurationText.parseMillis("1h30m")).isEqualTo(5_400_000);
        assertThat(DurationText.parseMillis("7d")).isEqualTo(7 * 86_400_000L);
        assertThat(DurationText.parseMillis("1w")).isEqualTo(7 * 86_400_000L);
        assertThat(DurationText.parseMillis("1.5s")).isEqualTo(1500);
        assertThat(DurationText.parseMillis("15")).isEqualTo(15_000);
        assertThat(DurationText.parseMillis("0.25")).isEqualTo(250);
    }

    @Test
    void notDurations() {
        // "7d" and "2f" are Java double literals: they must not sneak in as seconds
        assertThat(DurationText.parseMillis("2f")).isEqualTo(-1);
        assertThat(DurationText.parseMillis("-5s")).isEqualTo(-1);
        assertThat(DurationText.parseMillis("-5")).isEqualTo(-1);
        assertThat(DurationText.parseMillis("5 m")).isEqualTo(-1);
        assertThat(DurationText.parseMillis("1e3")).isEqualTo(-1);
        assertThat(DurationText.parseMillis("")).isEqualTo(-1);
        assertThat(DurationText.parseMillis("soon")).isEqualTo(-1);
    }
}
