package io.hpacontroller.core.forecast;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.function.IntToDoubleFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

/**
 * Holt-Winters against series with known answers. Each check forecasts from a series ending at minute
 * {@code end - 1}, {@code steps} minutes ahead, and compares with the true value at {@code end - 1 + steps}.
 */
class HoltWintersTest {

    private static final int DAY = 1440;
    private static final HoltWinters DAILY = new HoltWinters(Duration.ofHours(24));
    private static final IntToDoubleFunction SINE = i -> 100 + 50 * Math.sin(2 * Math.PI * i / DAY);

    static LoadSeries series(int minutes, IntToDoubleFunction load) {
        double[] y = new double[minutes];
        for (int i = 0; i < minutes; i++) {
            y[i] = load.applyAsDouble(i);
        }
        return LoadSeries.of(0, y);
    }

    static double load(Forecast f) {
        assertThat(f).isInstanceOf(Forecast.Predicted.class);
        return ((Forecast.Predicted) f).load();
    }

    @Test
    void aPureSineIsRecoveredAfterTwoSeasons() {
        for (int end = 2 * DAY; end < 3 * DAY; end += 53) {
            for (int steps : new int[]{1, 2, 10, 60}) {
                double forecast = load(DAILY.forecast(series(end, SINE), steps, Instant.EPOCH));
                assertThat(forecast).as("end %d, %d ahead", end, steps)
                        .isCloseTo(SINE.applyAsDouble(end - 1 + steps), offset(0.5));  // 1 % of the amplitude
            }
        }
    }

    @Test
    void theSeasonIsAlignedToTheMinute() {
        // a daily sawtooth rising half a unit a minute: being one minute off would cost 0.5
        IntToDoubleFunction sawtooth = i -> 100 + 0.5 * (i % DAY);
        for (int end = 3 * DAY + 240; end < 4 * DAY - 120; end += 41) {  // away from the daily drop
            for (int steps : new int[]{1, 2, 30}) {
                double forecast = load(DAILY.forecast(series(end, sawtooth), steps, Instant.EPOCH));
                assertThat(forecast).as("end %d, %d ahead", end, steps).isCloseTo(sawtooth.applyAsDouble(end - 1 + steps), offset(0.2));
            }
        }
    }

    @Test
    void aLinearRampIsFollowedClosely() {
        IntToDoubleFunction ramp = i -> 10 + 0.05 * i;
        for (int end = 2 * DAY; end < 2 * DAY + 600; end += 37) {
            double forecast = load(DAILY.forecast(series(end, ramp), 2, Instant.EPOCH));
            assertThat(forecast).isCloseTo(ramp.applyAsDouble(end + 1), offset(0.1));  // two minutes of the slope
        }
    }

    /**
     * A step from 100 to 200 after two days, forecast every 7 minutes for a day after it: the forecast
     * never goes beyond the new level by more than 10 % of the step, nor below the old one by as much, and
     * from 30 minutes after the step it is within 5 % of the new level (including a season later, where the
     * step left its mark in the seasonal offsets).
     */
    @Test
    void aStepIsFollowedWithoutOvershoot() {
        IntToDoubleFunction step = i -> i < 2 * DAY ? 100 : 200;
        for (int end = 2 * DAY + 1; end <= 3 * DAY + 120; end += 7) {
            double forecast = load(DAILY.forecast(series(end, step), 2, Instant.EPOCH));
            assertThat(forecast).as("end %d", end).isBetween(90.0, 210.0);
            if (end >= 2 * DAY + 30) {
                assertThat(forecast).as("end %d", end).isCloseTo(200, offset(10.0));
            }
        }
    }

    /**
     * Daily sine plus Gaussian noise (σ = 10, a fifth of the amplitude): the forecast of the underlying
     * value 2 minutes ahead has a root-mean-square error under 0.4 σ and never misses by more than σ.
     */
    @Test
    void noiseIsAveragedOut() {
        Random random = new Random(1);
        double[] noise = new double[9 * DAY];
        for (int i = 0; i < noise.length; i++) {
            noise[i] = random.nextGaussian() * 10;
        }
        IntToDoubleFunction noisy = i -> Math.max(0, SINE.applyAsDouble(i) + noise[i]);
        double sumSquares = 0;
        int n = 0;
        for (int end = 2 * DAY; end < 8 * DAY; end += 97) {
            double error = load(DAILY.forecast(series(end, noisy), 2, Instant.EPOCH)) - SINE.applyAsDouble(end + 1);
            assertThat(Math.abs(error)).as("end %d", end).isLessThan(10.0);
            sumSquares += error * error;
            n++;
        }
        assertThat(Math.sqrt(sumSquares / n)).isLessThan(4.0);
    }

    @Test
    void tooLittleHistoryProposesNothing() {
        Forecast f = DAILY.forecast(series(2 * DAY - 1, SINE), 2, Instant.EPOCH);
        assertThat(f).isEqualTo(new Forecast.NoForecast(Forecast.Reason.NOT_ENOUGH_HISTORY,
                "HoltWinters needs two seasons (48h0m0s) of load history, has 47h59m0s"));
        Forecast sparse = DAILY.forecast(series(3 * DAY, i -> i % 3 == 0 ? SINE.applyAsDouble(i) : Double.NaN), 2, Instant.EPOCH);
        assertThat(sparse).isEqualTo(new Forecast.NoForecast(Forecast.Reason.NOT_ENOUGH_HISTORY,
                "HoltWinters needs 36h0m0s of observed load in its history, has 24h0m0s"));
        assertThat(DAILY.forecast(series(3 * DAY, i -> i % 2 == 0 ? SINE.applyAsDouble(i) : Double.NaN), 2, Instant.EPOCH))
                .as("half of three days is three quarters of two seasons: enough").isInstanceOf(Forecast.Predicted.class);
    }

    @Test
    void gapsFromARestartAreBridged() {
        // the controller was down for three hours on day 4, and the newest five minutes are missing too
        IntToDoubleFunction withGaps = i -> (i >= 3 * DAY + 600 && i < 3 * DAY + 780) ? Double.NaN : SINE.applyAsDouble(i);
        for (int end = 3 * DAY + 781; end < 4 * DAY + 781; end += 61) {
            double forecast = load(DAILY.forecast(series(end, withGaps), 2, Instant.EPOCH));
            assertThat(forecast).as("end %d", end).isCloseTo(SINE.applyAsDouble(end + 1), offset(0.5));
        }
        int end = 4 * DAY;
        LoadSeries staleEnd = series(end, i -> i >= end - 5 ? Double.NaN : SINE.applyAsDouble(i));
        assertThat(load(DAILY.forecast(staleEnd, 2, Instant.EPOCH))).isCloseTo(SINE.applyAsDouble(end + 1), offset(0.5));
    }

    @Test
    void aWeeklySeasonLearnsTheWeekend() {
        HoltWinters weekly = new HoltWinters(Duration.ofHours(168));
        // weekdays peak at 300 around noon, weekends stay at 100
        IntToDoubleFunction week = i -> {
            int day = (i / DAY) % 7;
            double daily = Math.max(0, Math.sin(2 * Math.PI * ((i % DAY) - 360) / DAY));
            return day >= 5 ? 100 : 100 + 200 * daily;
        };
        int saturdayNoon = 2 * 7 * DAY + 5 * DAY + 720;
        int mondayNoon = 3 * 7 * DAY + 720;
        assertThat(load(weekly.forecast(series(saturdayNoon - 2, week), 2, Instant.EPOCH))).isCloseTo(100, offset(2.0));
        assertThat(load(weekly.forecast(series(mondayNoon - 2, week), 2, Instant.EPOCH))).isCloseTo(300, offset(2.0));
    }
}
