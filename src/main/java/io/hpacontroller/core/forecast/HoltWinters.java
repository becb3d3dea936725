package io.hpacontroller.core.forecast;

import io.hpacontroller.core.GoDuration;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * Additive Holt-Winters with a damped trend: level, trend and one seasonal offset per minute of the season.
 *
 * <p>Additive rather than multiplicative: a load can be zero or near it (a quiet night, an empty queue),
 * where the multiplicative form divides by the level and its seasonal factors blow up; the additive form
 * stays linear and bounded. Where the daily swing grows with the level the additive form lags a little, and
 * the reactive rule still acts on the observed value.
 *
 * <p>Fitting: the smoothing parameters are picked from a small grid (α × β × γ: 4 × 2 × 3 = 24
 * combinations, trend damped by φ = {@value #PHI} a minute) by the smallest squared error of the forecast
 * {@code steps} minutes ahead, the one the controller uses, over the whole series: one pass per combination,
 * so a fit costs 24 × (minutes of history) updates. Fitting runs once per new minute;
 * the initial level, trend and season come from the first two seasons.
 *
 * <p>Needs two seasons of history (from the first to the newest minute) of which at least 75 % observed;
 * a missing minute is bridged by the model's own one-step forecast (no update, the trend decays).
 */
public final class HoltWinters {

    static final double PHI = 0.98;
    private static final double[] ALPHAS = {0.1, 0.3, 0.6, 0.9};
    private static final double[] BETAS = {0, 0.1};
    private static final double[] GAMMAS = {0.05, 0.2, 0.5};
    static final int SMOOTHING = 7;

    private final int season;

    /** @param season the length of the season (whole minutes, at least 2) */
    public HoltWinters(Duration season) {
        long minutes = season.toMinutes();
        if (minutes < 2 || !season.equals(Duration.ofMinutes(minutes))) {
            throw new IllegalArgumentException("season must be a whole number of minutes, at least 2m, got " + GoDuration.format(season));
        }
        this.season = (int) minutes;
    }

    /** Minutes from the first to the newest point needed before the model forecasts: two seasons. */
    public int minimumMinutes() {
        return 2 * season;
    }

    /**
     * Fits the series and forecasts the load {@code steps} minutes after its newest minute.
     *
     * @param steps minutes after the newest one, at least 1
     * @param at    the instant the forecast is for (for the answer only)
     */
    public Forecast forecast(LoadSeries series, int steps, Instant at) {
        if (steps < 1) {
            throw new IllegalArgumentException("steps must be at least 1, got " + steps);
        }
        if (series.size() < minimumMinutes()) {
            return Forecast.notEnoughHistory("HoltWinters needs two seasons (" + minutes(minimumMinutes())
                    + ") of load history, has " + minutes(series.size()));
        }
        int observed = series.observed();
        if (observed * 4 < minimumMinutes() * 3) {
            return Forecast.notEnoughHistory("HoltWinters needs " + minutes(minimumMinutes() * 3 / 4)
                    + " of observed load in its history, has " + minutes(observed));
        }
        double[] y = series.values();
        Start start = start(y);
        double[] seasonal = new double[season];
        double[] pending = new double[steps + 1];
        Fit best = null;
        for (double alpha : ALPHAS) {
            for (double beta : BETAS) {
                for (double gamma : GAMMAS) {
                    System.arraycopy(start.seasonal, 0, seasonal, 0, season);
                    Fit fit = run(y, start, seasonal, pending, alpha, beta, gamma, steps);
                    if (best == null || fit.error < best.error) {
                        best = fit;
                    }
                }
            }
        }
        String how = String.format(Locale.ROOT, "HoltWinters(season %s, alpha %.2f, beta %.2f, gamma %.2f) over %s",
                minutes(season), best.alpha, best.beta, best.gamma, minutes(y.length));
        return Forecast.checked(best.forecast, at, how);
    }

    private record Fit(double alpha, double beta, double gamma, double error, double forecast) {
    }

    /**
     * One pass with fixed parameters: the squared error of the steps-ahead forecasts, and the final forecast.
     *
     * @param seasonal the starting seasonal offsets, updated in place
     * @param pending  room for the forecasts not yet compared (steps + 1)
     */
    private Fit run(double[] y, Start start, double[] seasonal, double[] pending, double alpha, double beta, double gamma, int steps) {
        int m = season;
        double level = start.level;
        double trend = start.trend;
        double damping = dampingSum(steps);
        double error = 0;
        int phase = 0;                    // t mod m
        int ahead = steps % m;            // (t + steps) mod m
        int slot = m % pending.length;    // t mod (steps + 1)
        for (int t = m; t < y.length; t++) {
            double observed = y[t];
            boolean missing = Double.isNaN(observed);
            if (!missing && t - steps >= m) {
                double e = observed - pending[slot];
                error += e * e;
            }
            double s = seasonal[phase];
            if (missing) {
                level += PHI * trend;
                trend *= PHI;
            } else {
                double previous = level;
                level = alpha * (observed - s) + (1 - alpha) * (previous + PHI * trend);
                trend = beta * (level - previous) + (1 - beta) * PHI * trend;
                seasonal[phase] = gamma * (observed - level) + (1 - gamma) * s;
            }
            // the forecast made now for t + steps lands in the slot read at t + steps
            int target = slot == 0 ? pending.length - 1 : slot - 1;
            pending[target] = level + damping * trend + seasonal[ahead];
            phase = nextInRing(phase, m);
            ahead = nextInRing(ahead, m);
            slot = nextInRing(slot, pending.length);
        }
        // after the loop, ahead is (y.length + steps) mod m: the phase of the minute forecast
        int forecastPhase = ahead == 0 ? m - 1 : ahead - 1;
        double forecast = level + damping * trend + seasonal[forecastPhase];
        return new Fit(alpha, beta, gamma, Double.isNaN(error) ? Double.POSITIVE_INFINITY : error, forecast);
    }

    /** The index after {@code i} in a ring of {@code size}: the counters above, kept without a division a minute. */
    private static int nextInRing(int i, int size) {
        return i + 1 == size ? 0 : i + 1;
    }

    /** The state before the first update: from the first two seasons. */
    private record Start(double level, double trend, double[] seasonal) {
    }

    /**
     * Level and trend from the means of the first two seasons; each minute's seasonal offset from the
     * detrended values of the first two seasons around that minute ({@value #SMOOTHING} minutes either side):
     * one noisy minute is not learned as a pattern, while a daily curve is kept (for a 24h sine the
     * averaging changes the offset by less than 0.02 %).
     */
    private Start start(double[] y) {
        int m = season;
        double mean1 = mean(y, 0, m);
        double mean2 = mean(y, m, 2 * m);
        if (Double.isNaN(mean1)) {
            mean1 = mean2;
        }
        double trend = Double.isNaN(mean2) ? 0 : (mean2 - mean1) / m;
        double centre = (m - 1) / 2.0;
        double[] detrended = new double[2 * m];
        for (int i = 0; i < 2 * m; i++) {
            detrended[i] = y[i] - (mean1 + (i - centre) * trend);
        }
        int half = Math.min(SMOOTHING, (m - 1) / 2);
        double[] seasonal = new double[m];
        for (int i = 0; i < m; i++) {
            double sum = 0;
            int n = 0;
            for (int j = -half; j <= half; j++) {
                int phase = Math.floorMod(i + j, m);
                for (int k = phase; k < 2 * m; k += m) {
                    if (!Double.isNaN(detrended[k])) {
                        sum += detrended[k];
                        n++;
                    }
                }
            }
            seasonal[i] = n == 0 ? 0 : sum / n;
        }
        // the level at the end of the first season, from which the updates start
        return new Start(mean1 + (m - 1 - centre) * trend, trend, seasonal);
    }

    /** φ + φ² + … + φ^steps: how much of the trend a forecast steps ahead adds. */
    private static double dampingSum(int steps) {
        double sum = 0;
        double power = 1;
        for (int i = 0; i < steps; i++) {
            power *= PHI;
            sum += power;
        }
        return sum;
    }

    private static double mean(double[] y, int from, int to) {
        double sum = 0;
        int n = 0;
        for (int i = from; i < to; i++) {
            if (!Double.isNaN(y[i])) {
                sum += y[i];
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    static String minutes(long minutes) {
        return GoDuration.format(Duration.ofMinutes(minutes));
    }
}
