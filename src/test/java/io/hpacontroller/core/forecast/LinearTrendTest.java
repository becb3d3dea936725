package io.hpacontroller.core.forecast;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.function.IntToDoubleFunction;

import static io.hpacontroller.core.forecast.HoltWintersTest.load;
import static io.hpacontroller.core.forecast.HoltWintersTest.series;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

class LinearTrendTest {

    private static final LinearTrend HALF_HOUR = new LinearTrend(Duration.ofMinutes(30));

    @Test
    void aLinearRampIsExtendedExactly() {
        IntToDoubleFunction ramp = i -> 10 + 0.05 * i;
        for (int end = 30; end < 3000; end += 37) {
            for (int steps : new int[]{1, 2, 10}) {
                double forecast = load(HALF_HOUR.forecast(series(end, ramp), steps, Instant.EPOCH));
                assertThat(forecast).isCloseTo(ramp.applyAsDouble(end - 1 + steps), offset(1e-9));
            }
        }
    }

    @Test
    void missingMinutesDoNotBendTheLine() {
        IntToDoubleFunction ramp = i -> i % 4 == 1 ? Double.NaN : 500 - 2 * i;
        assertThat(load(HALF_HOUR.forecast(series(100, ramp), 5, Instant.EPOCH))).isCloseTo(500 - 2 * 104, offset(1e-9));
    }

    @Test
    void onlyTheWindowCounts() {
        // flat for a day, then rising for the last half hour: the old flat part does not hold the line down
        IntToDoubleFunction kink = i -> i < 1410 ? 100 : 100 + 3 * (i - 1410);
        assertThat(load(HALF_HOUR.forecast(series(1440, kink), 2, Instant.EPOCH))).isCloseTo(100 + 3 * 31, offset(1e-9));
    }

    /**
     * A step from 100 to 200: the line through it is steepest about 20 minutes after the step, and 2 minutes
     * ahead it then overshoots the new level by up to 40 % of the step (tested: at most 45 %); from 30
     * minutes after the step (all of the window on the new level) the forecast is exact again.
     */
    @Test
    void aStepIsOvershotByTheExtrapolatedRiseOnlyWhileItIsInTheWindow() {
        IntToDoubleFunction step = i -> i < 120 ? 100 : 200;
        for (int end = 121; end < 300; end++) {
            double forecast = load(HALF_HOUR.forecast(series(end, step), 2, Instant.EPOCH));
            assertThat(forecast).as("end %d", end).isBetween(100.0, 245.0);
            if (end >= 150) {
                assertThat(forecast).as("end %d", end).isCloseTo(200, offset(1e-9));
            }
        }
    }

    /** A ramp plus Gaussian noise (σ = 10): root-mean-square error 2 minutes ahead under 0.5 σ, never more than 1.5 σ. */
    @Test
    void noiseIsAveragedOverTheWindow() {
        Random random = new Random(5);
        double[] noise = new double[4000];
        for (int i = 0; i < noise.length; i++) {
            noise[i] = random.nextGaussian() * 10;
        }
        double sumSquares = 0;
        int n = 0;
        for (int end = 30; end < 3900; end += 13) {
            double forecast = load(HALF_HOUR.forecast(series(end, i -> 200 + 0.1 * i + noise[i]), 2, Instant.EPOCH));
            double error = forecast - (200 + 0.1 * (end + 1));
            assertThat(Math.abs(error)).isLessThan(15.0);
            sumSquares += error * error;
            n++;
        }
        assertThat(Math.sqrt(sumSquares / n)).isLessThan(5.0);
    }

    @Test
    void halfTheWindowMustBeObserved() {
        IntToDoubleFunction sparse = i -> i < 16 ? Double.NaN : 50;
        assertThat(HALF_HOUR.forecast(series(30, sparse), 2, Instant.EPOCH)).isEqualTo(new Forecast.NoForecast(
                Forecast.Reason.NOT_ENOUGH_HISTORY, "Linear needs 15m0s of observed load in its 30m0s window, has 14m0s"));
        assertThat(load(HALF_HOUR.forecast(series(30, i -> i < 15 ? Double.NaN : 50), 2, Instant.EPOCH))).isEqualTo(50.0);
    }

    @Test
    void aLineThroughZeroIsDiscardedNotUsed() {
        Forecast f = HALF_HOUR.forecast(series(30, i -> 60 - 2 * i), 5, Instant.EPOCH);
        assertThat(f).isEqualTo(new Forecast.NoForecast(Forecast.Reason.DISCARDED,
                "Linear(slope -2.000 a minute) over 30m0s: forecast -8.000 is negative; discarded"));
    }
}
