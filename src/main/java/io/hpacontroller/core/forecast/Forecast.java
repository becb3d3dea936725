package io.hpacontroller.core.forecast;

import java.time.Instant;
import java.util.Locale;

/**
 * What a model says about a metric's load at {@code now + horizon}: a predicted load, or why there is
 * none. Never an exception: bad data and too little history are answers, and the HPA then scales on the
 * observed value alone.
 */
public sealed interface Forecast {

    /**
     * A usable forecast.
     *
     * @param load the predicted load (finite, not negative), in the unit it was recorded in
     * @param at   the minute it is for (the start of the minute containing {@code now + horizon})
     * @param how  the model and what it was fitted to, for the decision trace
     */
    record Predicted(double load, Instant at, String how) implements Forecast {
    }

    /**
     * No forecast.
     *
     * @param reason  the kind, for metrics and tests
     * @param message what happened, for the decision trace
     */
    record NoForecast(Reason reason, String message) implements Forecast {
    }

    enum Reason {
        /** The model has not learned enough yet (see the package doc for how much each one needs). */
        NOT_ENOUGH_HISTORY,
        /** The newest recorded minute is too old to forecast from (the metric has not been read lately). */
        STALE,
        /** The model produced a value that cannot be a load: NaN, infinite or negative. */
        DISCARDED
    }

    static Forecast notEnoughHistory(String message) {
        return new NoForecast(Reason.NOT_ENOUGH_HISTORY, message);
    }

    /** The model's value if it can be a load; discarded with a reason otherwise. */
    static Forecast checked(double load, Instant at, String how) {
        if (Double.isNaN(load) || Double.isInfinite(load)) {
            return new NoForecast(Reason.DISCARDED, how + ": forecast " + load + " is not a number; discarded");
        }
        if (load < 0) {
            return new NoForecast(Reason.DISCARDED, how + ": forecast " + String.format(Locale.ROOT, "%.4g", load)
                    + " is negative; discarded");
        }
        return new Predicted(load, at, how);
    }
}
