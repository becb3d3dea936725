package io.hpacontroller.core;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GoDurationTest {

    @Test
    void goForms() {
        assertThat(GoDuration.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(GoDuration.parse("1.5h")).isEqualTo(Duration.ofMinutes(90));
        assertThat(GoDuration.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(GoDuration.parse("-5m")).isEqualTo(Duration.ofMinutes(-5));
        assertThat(GoDuration.parse("0")).isEqualTo(Duration.ZERO);
    }

    @Test
    void aDurationBeyondGosRangeIsRefusedInsteadOfWrappingAround() {
        // 2^63 ns is about 292 years; before the check this wrapped to a negative duration
        assertThatThrownBy(() -> GoDuration.parse("2562048h"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too long");
        assertThat(GoDuration.parse("2562047h")).isEqualTo(Duration.ofHours(2562047));
    }

    @Test
    void daysAndWeeksAreTwentyFourHoursAndSevenDays() {
        assertThat(GoDuration.parseWithDays("7d")).isEqualTo(Duration.ofHours(168));
        assertThat(GoDuration.parseWithDays("1d12h")).isEqualTo(Duration.ofHours(36));
        assertThat(GoDuration.parseWithDays("2w")).isEqualTo(Duration.ofDays(14));
        assertThat(GoDuration.parseWithDays("1.5d")).isEqualTo(Duration.ofHours(36));
        assertThat(GoDuration.parseWithDays("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(GoDuration.parseWithDays("-1d")).isEqualTo(Duration.ofHours(-24));
    }

    @Test
    void daysAreNotAWayAroundTheSyntax() {
        for (String bad : new String[]{"7days", "d", "7 d", "7D", "1d2", "", "1dd", "1w1x"}) {
            assertThatThrownBy(() -> GoDuration.parseWithDays(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("\"" + bad + "\"")
                    .hasMessageContaining("d, w");
        }
    }

    @Test
    void scenarioDurationsTakeUnitsDaysAndPlainSeconds() {
        assertThat(GoDuration.parseMillisOrSeconds("15s")).isEqualTo(15_000);
        assertThat(GoDuration.parseMillisOrSeconds("500ms")).isEqualTo(500);
        assertThat(GoDuration.parseMillisOrSeconds("5m")).isEqualTo(300_000);
        assertThat(GoDuration.parseMillisOrSeconds("1h30m")).isEqualTo(5_400_000);
        assertThat(GoDuration.parseMillisOrSeconds("7d")).isEqualTo(7 * 86_400_000L);
        assertThat(GoDuration.parseMillisOrSeconds("1w")).isEqualTo(7 * 86_400_000L);
        assertThat(GoDuration.parseMillisOrSeconds("1.5s")).isEqualTo(1500);
        assertThat(GoDuration.parseMillisOrSeconds("15")).isEqualTo(15_000);
        assertThat(GoDuration.parseMillisOrSeconds("0.25")).isEqualTo(250);
    }

    @Test
    void scenarioDurationsRefuseWhatIsNotADuration() {
        // "7d" and "2f" are Java double literals: they must not sneak in as seconds
        assertThat(GoDuration.parseMillisOrSeconds("2f")).isEqualTo(-1);
        assertThat(GoDuration.parseMillisOrSeconds("-5s")).isEqualTo(-1);
        assertThat(GoDuration.parseMillisOrSeconds("-5")).isEqualTo(-1);
        assertThat(GoDuration.parseMillisOrSeconds("5 m")).isEqualTo(-1);
        assertThat(GoDuration.parseMillisOrSeconds("1e3")).isEqualTo(-1);
        assertThat(GoDuration.parseMillisOrSeconds("")).isEqualTo(-1);
        assertThat(GoDuration.parseMillisOrSeconds("soon")).isEqualTo(-1);
    }

    @Test
    void secondsForMessages() {
        assertThat(GoDuration.seconds(26_000)).isEqualTo("26");
        assertThat(GoDuration.seconds(1_500)).isEqualTo("1.5");
        assertThat(GoDuration.seconds(250)).isEqualTo("0.25");
    }
}
