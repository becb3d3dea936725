package io.hpacontroller.core.forecast;

import io.hpacontroller.core.forecast.PredictSetting.Model;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

class PredictSettingTest {

    private static final Instant T0 = Instant.parse("2026-03-02T00:00:00Z");
    private static final PredictSetting DAILY = new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(24),
            Duration.ofMinutes(2), Duration.ofDays(7));
    private static final PredictSetting LINEAR = new PredictSetting(Model.LINEAR, null, Duration.ofMinutes(2), Duration.ofMinutes(30));

    /** A daily sine of load, as a cpu total over the pods would swing (in millicores). */
    private static final ToDoubleFunction<Instant> DIURNAL = t ->
            4000 + 2500 * Math.sin(2 * Math.PI * (t.getEpochSecond() - T0.getEpochSecond()) / 86400.0);

    private static LoadHistory syncsEvery15s(PredictSetting setting, Instant until, ToDoubleFunction<Instant> load) {
        LoadHistory h = setting.newHistory();
        for (Instant t = T0; t.isBefore(until); t = t.plusSeconds(15)) {
            h.record("Resource/cpu", t, load.applyAsDouble(t));
        }
        return h;
    }

    /** What the history records for the minute containing t: the highest of its four syncs. */
    private static double minuteMax(Instant t, ToDoubleFunction<Instant> load) {
        Instant start = Instant.ofEpochSecond(Math.floorDiv(t.getEpochSecond(), 60) * 60);
        double max = 0;
        for (int s = 0; s < 60; s += 15) {
            max = Math.max(max, load.applyAsDouble(start.plusSeconds(s)));
        }
        return max;
    }

    @Test
    void fromSyncsToAForecastTwoMinutesAheadAfterTwoDays() {
        LoadHistory h = syncsEvery15s(DAILY, T0.plus(Duration.ofDays(3)), DIURNAL);
        for (int minute = 0; minute < 1440; minute += 47) {
            Instant now = T0.plus(Duration.ofDays(2)).plusSeconds(60L * minute + 20);
            // the history as it was at now: the syncs up to now
            LoadHistory upToNow = syncsEvery15s(DAILY, now.plusSeconds(1), DIURNAL);
            Forecast f = DAILY.forecast(upToNow.series("Resource/cpu"), now);
            assertThat(f).isInstanceOf(Forecast.Predicted.class);
            Forecast.Predicted p = (Forecast.Predicted) f;
            assertThat(p.at()).isEqualTo(now.plusSeconds(100));  // the minute containing now + 2m
            assertThat(p.load()).as("minute %d", minute).isCloseTo(minuteMax(p.at(), DIURNAL), offset(25.0));  // 1 % of the swing
        }
        assertThat(h.series("Resource/cpu").size()).isEqualTo(3 * 1440);
    }

    @Test
    void linearFromSyncs() {
        ToDoubleFunction<Instant> rising = t -> 1000 + (t.getEpochSecond() - T0.getEpochSecond()) / 6.0;  // +10 a minute
        Instant now = T0.plus(Duration.ofHours(1)).plusSeconds(5);
        LoadHistory h = syncsEvery15s(LINEAR, now.plusSeconds(1), rising);
        Forecast.Predicted p = (Forecast.Predicted) LINEAR.forecast(h.series("Resource/cpu"), now);
        assertThat(p.at()).isEqualTo(T0.plus(Duration.ofMinutes(62)));
        assertThat(p.load()).isCloseTo(minuteMax(p.at(), rising), offset(0.1));
        assertThat(p.how()).startsWith("Linear(slope 10.00 a minute) over 30m0s");
    }

    @Test
    void theForecastIsForTheMinuteContainingNowPlusHorizonFromTheCompleteMinutes() {
        double[] values = new double[30];
        java.util.Arrays.fill(values, 40);
        values[29] = 10;  // 00:29 so far: one sync
        LoadSeries upTo0029 = LoadSeries.of(T0.getEpochSecond() / 60, values);
        Instant now = T0.plusSeconds(29 * 60 + 10);
        PredictSetting shortHorizon = new PredictSetting(Model.LINEAR, null, Duration.ofSeconds(5), Duration.ofMinutes(30));
        Forecast.Predicted p = (Forecast.Predicted) shortHorizon.forecast(upTo0029, now);
        assertThat(p.at()).isEqualTo(T0.plusSeconds(29 * 60));
        assertThat(p.load()).as("the minute in progress is left out").isEqualTo(40.0);
        assertThat(((Forecast.Predicted) LINEAR.forecast(upTo0029, now)).at()).isEqualTo(T0.plusSeconds(31 * 60));
    }

    @Test
    void noForecastFromNothingOrFromAnOldSeries() {
        assertThat(DAILY.forecast(LoadSeries.of(0), T0)).isEqualTo(
                new Forecast.NoForecast(Forecast.Reason.NOT_ENOUGH_HISTORY, "no load recorded yet"));
        LoadSeries upTo0029 = LoadSeries.of(T0.getEpochSecond() / 60, new double[30]);
        assertThat(LINEAR.forecast(upTo0029, T0.plusSeconds(34 * 60 + 59))).isInstanceOf(Forecast.Predicted.class);
        assertThat(LINEAR.forecast(upTo0029, T0.plusSeconds(35 * 60))).isEqualTo(new Forecast.NoForecast(Forecast.Reason.STALE,
                "the newest recorded minute of load is 6m0s old, more than 5m0s"));
    }

    @Test
    void rangesAreCheckedWithMessagesNamingTheField() {
        Duration h2 = Duration.ofMinutes(2);
        assertThatThrownBy(() -> new PredictSetting(Model.LINEAR, null, Duration.ZERO, Duration.ofMinutes(30)))
                .hasMessage("horizon must be more than 0s and at most 1h, got 0s");
        assertThatThrownBy(() -> new PredictSetting(Model.LINEAR, null, Duration.ofMinutes(61), Duration.ofMinutes(30)))
                .hasMessage("horizon must be more than 0s and at most 1h, got 1h1m0s");
        assertThatThrownBy(() -> new PredictSetting(Model.LINEAR, Duration.ofHours(24), h2, Duration.ofMinutes(30)))
                .hasMessage("season applies to HoltWinters only, not to Linear");
        assertThatThrownBy(() -> new PredictSetting(Model.LINEAR, null, h2, Duration.ofMinutes(4)))
                .hasMessage("history must be between 5m and 24h for Linear, got 4m0s");
        assertThatThrownBy(() -> new PredictSetting(Model.LINEAR, null, h2, Duration.ofHours(25)))
                .hasMessage("history must be between 5m and 24h for Linear, got 25h0m0s");
        assertThatThrownBy(() -> new PredictSetting(Model.HOLT_WINTERS, Duration.ofMinutes(5), h2, Duration.ofDays(7)))
                .hasMessage("season must be between 10m and 168h in whole minutes, got 5m0s");
        assertThatThrownBy(() -> new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(169), h2, Duration.ofDays(14)))
                .hasMessage("season must be between 10m and 168h in whole minutes, got 169h0m0s");
        assertThatThrownBy(() -> new PredictSetting(Model.HOLT_WINTERS, Duration.ofSeconds(3601), h2, Duration.ofDays(7)))
                .hasMessage("season must be between 10m and 168h in whole minutes, got 1h0m1s");
        assertThatThrownBy(() -> new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(24), h2, Duration.ofHours(47)))
                .hasMessage("history must be between two seasons (48h0m0s) and 14d for HoltWinters, got 47h0m0s");
        assertThatThrownBy(() -> new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(24), h2, Duration.ofDays(15)))
                .hasMessage("history must be between two seasons (48h0m0s) and 14d for HoltWinters, got 360h0m0s");
        assertThat(new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(168), Duration.ofHours(1), Duration.ofDays(14))).isNotNull();
    }

    @Test
    void defaultHistories() {
        assertThat(PredictSetting.defaultHistory(Model.LINEAR, null)).isEqualTo(Duration.ofMinutes(30));
        assertThat(PredictSetting.defaultHistory(Model.HOLT_WINTERS, Duration.ofHours(24))).isEqualTo(Duration.ofDays(7));
        assertThat(PredictSetting.defaultHistory(Model.HOLT_WINTERS, Duration.ofHours(168))).isEqualTo(Duration.ofDays(14));
    }

    @Test
    void theSettingMustFitTheBoundForTheHpasMetrics() {
        assertThat(DAILY.capacityProblem(1)).isEmpty();
        assertThat(DAILY.capacityProblem(2)).isEmpty();
        assertThat(DAILY.capacityProblem(3)).isEqualTo(Optional.of(
                "history 168h0m0s for 3 metrics is more than the 64 KiB kept per HPA holds: at most 134h16m0s each"));
        assertThat(LINEAR.capacityProblem(16)).isEmpty();
        assertThat(LINEAR.capacityProblem(17)).contains("predict learns at most 16 metrics per HPA, this HPA has 17");
    }
}
