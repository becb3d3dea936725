package io.hpacontroller.core.forecast;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * A straight line fitted by least squares to the last {@code window} minutes of load, extended to the
 * minute asked for. Needs at least half of the window observed (and 3 points): until then, no forecast.
 */
public final class LinearTrend {

    private final int window;

    /** @param window how far back the line is fitted (at least 2 minutes) */
    public LinearTrend(Duration window) {
        long minutes = (window.toSeconds() + 59) / 60;
        if (minutes < 2) {
            throw new IllegalArgumentException("window must be at least 2m, got " + window);
        }
        this.window = (int) Math.min(Integer.MAX_VALUE, minutes);
    }

    /** Observed minutes needed before the model forecasts: half the window, at least 3. */
    public int minimumObserved() {
        return Math.max(3, (window + 1) / 2);
    }

    /**
     * Fits the last window of the series and forecasts the load {@code steps} minutes after its newest minute.
     *
     * @param steps minutes after the newest one, at least 1
     * @param at    the instant the forecast is for (for the answer only)
     */
    public Forecast forecast(LoadSeries series, int steps, Instant at) {
        if (steps < 1) {
            throw new IllegalArgumentException("steps must be at least 1, got " + steps);
        }
        LoadSeries recent = series.last(window);
        int n = recent.observed();
        if (n < minimumObserved()) {
            return Forecast.notEnoughHistory("Linear needs " + HoltWinters.minutes(minimumObserved())
                    + " of observed load in its " + HoltWinters.minutes(window) + " window, has " + HoltWinters.minutes(n));
        }
        // x counts minutes back from the newest (0, -1, ...): small numbers, no loss of precision
        int newest = recent.size() - 1;
        double sumX = 0;
        double sumY = 0;
        for (int i = 0; i <= newest; i++) {
            double v = recent.value(i);
            if (!Double.isNaN(v)) {
                sumX += i - newest;
                sumY += v;
            }
        }
        double meanX = sumX / n;
        double meanY = sumY / n;
        double sxx = 0;
        double sxy = 0;
        for (int i = 0; i <= newest; i++) {
            double v = recent.value(i);
            if (!Double.isNaN(v)) {
                double dx = i - newest - meanX;
                sxx += dx * dx;
                sxy += dx * (v - meanY);
            }
        }
        double slope = sxx == 0 ? 0 : sxy / sxx;
        double forecast = meanY + slope * (steps - meanX);
        String how = String.format(Locale.ROOT, "Linear(slope %.4g a minute) over %s", slope, HoltWinters.minutes(recent.size()));
        return Forecast.checked(forecast, at, how);
    }
}
