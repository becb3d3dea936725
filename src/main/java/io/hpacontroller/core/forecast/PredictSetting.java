package io.hpacontroller.core.forecast;

import io.hpacontroller.core.GoDuration;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * An HPA's {@code predict} setting: which model, how far ahead, how much history.
 *
 * <table>
 *   <caption>Fields and accepted values</caption>
 *   <tr><th>field</th><th>HoltWinters</th><th>Linear</th></tr>
 *   <tr><td>{@code season}</td><td>10m to 168h, whole minutes; default 24h</td><td>not allowed</td></tr>
 *   <tr><td>{@code horizon}</td><td colspan="2">required, more than 0s, at most 1h</td></tr>
 *   <tr><td>{@code history}</td><td>two seasons to 14d; default 7d (two seasons when longer)</td>
 *       <td>the fitted window, 5m to 24h; default 30m</td></tr>
 * </table>
 *
 * <p>Why these ranges: a season shorter than 10 minutes is noise at one point a minute, and 168h (a week)
 * is the longest pattern two seasons of which still fit the 64 KiB per HPA ({@link LoadHistory}); a
 * horizon beyond an hour is the scheduled rules' job (a forecast that far ahead is a guess); a line fitted
 * over more than a day says nothing about the next minutes.
 *
 * @param model   the model
 * @param season  the season of HoltWinters, null for Linear
 * @param horizon how far ahead of now the forecast is (typically pod start-up plus the metrics' lag)
 * @param history how much load each metric keeps (HoltWinters) or the window the line is fitted to (Linear)
 */
public record PredictSetting(Model model, Duration season, Duration horizon, Duration history) {

    public enum Model {
        HOLT_WINTERS("HoltWinters"),
        LINEAR("Linear");

        private final String spelling;

        Model(String spelling) {
            this.spelling = spelling;
        }

        /** The model as written in the setting; null when it is none of them (case matters, as in Kubernetes enums). */
        public static Model of(String text) {
            for (Model m : values()) {
                if (m.spelling.equals(text)) {
                    return m;
                }
            }
            return null;
        }

        @Override
        public String toString() {
            return spelling;
        }
    }

    public static final Duration MIN_SEASON = Duration.ofMinutes(10);
    public static final Duration MAX_SEASON = Duration.ofHours(168);
    public static final Duration DEFAULT_SEASON = Duration.ofHours(24);
    public static final Duration MAX_HORIZON = Duration.ofHours(1);
    public static final Duration MAX_HOLT_WINTERS_HISTORY = Duration.ofDays(14);
    public static final Duration DEFAULT_HOLT_WINTERS_HISTORY = Duration.ofDays(7);
    public static final Duration MIN_LINEAR_HISTORY = Duration.ofMinutes(5);
    public static final Duration MAX_LINEAR_HISTORY = Duration.ofHours(24);
    public static final Duration DEFAULT_LINEAR_HISTORY = Duration.ofMinutes(30);
    /** A series whose newest complete minute is older than this gives no forecast: the level may have moved since. */
    public static final Duration MAX_STALENESS = Duration.ofMinutes(5);

    /**
     * @throws IllegalArgumentException naming the field and its accepted range when a value is out of range
     */
    public PredictSetting {
        Objects.requireNonNull(model, "model");
        if (horizon == null || horizon.isZero() || horizon.isNegative() || horizon.compareTo(MAX_HORIZON) > 0) {
            throw new IllegalArgumentException("horizon must be more than 0s and at most 1h, got " + text(horizon));
        }
        if (model == Model.HOLT_WINTERS) {
            if (season == null || season.compareTo(MIN_SEASON) < 0 || season.compareTo(MAX_SEASON) > 0
                    || !season.equals(Duration.ofMinutes(season.toMinutes()))) {
                throw new IllegalArgumentException("season must be between 10m and 168h in whole minutes, got " + text(season));
            }
            Duration least = season.multipliedBy(2);
            if (history == null || history.compareTo(least) < 0 || history.compareTo(MAX_HOLT_WINTERS_HISTORY) > 0) {
                throw new IllegalArgumentException("history must be between two seasons (" + GoDuration.format(least)
                        + ") and 14d for HoltWinters, got " + text(history));
            }
        } else {
            if (season != null) {
                throw new IllegalArgumentException("season applies to HoltWinters only, not to " + model);
            }
            if (history == null || history.compareTo(MIN_LINEAR_HISTORY) < 0 || history.compareTo(MAX_LINEAR_HISTORY) > 0) {
                throw new IllegalArgumentException("history must be between 5m and 24h for Linear, got " + text(history));
            }
        }
    }

    /** The default history of a model (HoltWinters: 7d, or two seasons when that is longer; Linear: 30m). */
    public static Duration defaultHistory(Model model, Duration season) {
        if (model == Model.LINEAR) {
            return DEFAULT_LINEAR_HISTORY;
        }
        Duration twoSeasons = (season == null ? DEFAULT_SEASON : season).multipliedBy(2);
        return twoSeasons.compareTo(DEFAULT_HOLT_WINTERS_HISTORY) > 0 ? twoSeasons : DEFAULT_HOLT_WINTERS_HISTORY;
    }

    /**
     * Whether the setting fits an HPA with {@code metrics} metrics under the 64 KiB bound: empty when it
     * does, else why not (for the same condition as an invalid value).
     */
    public Optional<String> capacityProblem(int metrics) {
        if (metrics > LoadHistory.MAX_METRICS) {
            return Optional.of("predict learns at most " + LoadHistory.MAX_METRICS + " metrics per HPA, this HPA has " + metrics);
        }
        Duration fits = Duration.ofMinutes(LoadHistory.capacityMinutes(metrics) - 1);  // and the minute in progress
        if (history.compareTo(fits) > 0) {
            return Optional.of("history " + GoDuration.format(history) + " for " + metrics + " metrics is more than the 64 KiB"
                    + " kept per HPA holds: at most " + GoDuration.format(fits) + " each");
        }
        return Optional.empty();
    }

    /** A store for this setting's history. */
    public LoadHistory newHistory() {
        return new LoadHistory(history);
    }

    /**
     * The forecast of a metric's load at {@code now + horizon}: for the minute that contains it, from the
     * complete minutes before now (the minute in progress is left out: the highest of its syncs so far is
     * not yet the minute's).
     */
    public Forecast forecast(LoadSeries recorded, Instant now) {
        long nowMinute = Math.floorDiv(now.getEpochSecond(), 60);
        LoadSeries series = recorded.before(nowMinute);
        if (series.isEmpty()) {
            return Forecast.notEnoughHistory("no load recorded yet");
        }
        long age = nowMinute - series.newestMinute();
        if (age > MAX_STALENESS.toMinutes()) {
            return new Forecast.NoForecast(Forecast.Reason.STALE, "the newest recorded minute of load is " + HoltWinters.minutes(age)
                    + " old, more than " + GoDuration.format(MAX_STALENESS));
        }
        long targetMinute = Math.floorDiv(now.plus(horizon).getEpochSecond(), 60);
        int steps = (int) (targetMinute - series.newestMinute());
        Instant at = Instant.ofEpochSecond((series.newestMinute() + steps) * 60);
        return model == Model.HOLT_WINTERS
                ? new HoltWinters(season).forecast(series, steps, at)
                : new LinearTrend(history).forecast(series, steps, at);
    }

    private static String text(Duration d) {
        return d == null ? "nothing" : GoDuration.format(d);
    }
}
