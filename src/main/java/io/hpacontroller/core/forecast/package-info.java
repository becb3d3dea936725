/**
 * Predictive scaling: learn each metric's load from what the controller observes, forecast it at
 * {@code now + horizon}.
 *
 * <h2>What is learned</h2>
 * A value that does not depend on the replica count, so that a forecast stays valid as replicas change.
 * The integration feeds, at each sync and for each metric of an HPA that opts in:
 * <ul>
 *   <li>per-pod targets (Resource and ContainerResource {@code Utilization} or {@code AverageValue}, Pods):
 *       the total over the pods, the average times the ready pod count ({@code averageUtilization × ready}
 *       in percent-pods, {@code averageValue × ready}); the predicted proposal is then
 *       {@code ceil(forecast / target)}, which is upstream's rule with the total in place of
 *       {@code average × ready};</li>
 *   <li>{@code AverageValue} of Object and External metrics: the value itself (it is already a total;
 *       upstream's proposal is {@code ceil(value / averageValue)});</li>
 *   <li>{@code Value} targets (Object, External): the value itself. Upstream's rule scales the ready count
 *       by {@code value / target}, so such a metric is usually one that falls as pods are added (a latency, a
 *       per-pod rate); its forecast assumes the replica count it was learned with and is the least reliable
 *       of the three.</li>
 * </ul>
 * Nothing here knows a metric's target or the replica count: the integration turns a forecast into a
 * proposal with the same calculator rule as the observed value, takes {@code max(reactive, predicted)}, and
 * discards a forecast worth more than {@code maxReplicas} (with a trace entry).
 *
 * <h2>The series ({@link io.hpacontroller.core.forecast.LoadHistory})</h2>
 * One point a minute per metric, the <em>highest</em> of the minute's syncs: prediction can only bring a
 * scale-up forward, so what matters is the peak the minute had to be served at, the value the reactive
 * rule scales on at its worst sync; a minute's mean would forecast below the reactive proposal exactly when
 * a forecast is useful. A one-off spike is damped by the models (it enters a seasonal offset with weight
 * γ at most 0.5, and the start of a season is smoothed over 15 minutes). Missing minutes (a restart, a metric
 * that failed) are kept as gaps. Bound: at most 64 KiB (65,536 characters of base64) per HPA in the persisted
 * form and 2 bytes a minute per metric in memory, whatever {@code history} says; the history per metric is
 * what fits ({@link io.hpacontroller.core.forecast.LoadHistory#capacityMinutes}: about 17 days for one
 * metric, 8.4 for two). The persisted form is versioned, checksummed base64; garbage reads as an error
 * message, never as an exception.
 *
 * <h2>Models</h2>
 * <ul>
 *   <li>{@link io.hpacontroller.core.forecast.HoltWinters}: additive, damped trend, season of 10m to 168h,
 *       parameters fitted on a small grid at each call (24 passes over the history: a few
 *       milliseconds for a week; call it once per new minute). Forecasts once it has <b>two seasons</b> of
 *       history with at least 75 % of the minutes observed.</li>
 *   <li>{@link io.hpacontroller.core.forecast.LinearTrend}: least squares over the last {@code history}
 *       (the window, 5m to 24h). Forecasts once <b>half the window</b> (at least 3 minutes) is observed. It
 *       extrapolates: a step in the window is overshot by up to 40 % of the step for 2 minutes ahead with a
 *       30-minute window, until the window has passed the step.</li>
 * </ul>
 * {@link io.hpacontroller.core.forecast.PredictSetting#forecast} forecasts for the minute containing
 * {@code now + horizon} from the complete minutes before now; a series whose newest minute is more than 5
 * minutes old gives none. The answer is a {@link io.hpacontroller.core.forecast.Forecast}: a load, or why
 * there is none (not enough history, stale, or discarded because it was NaN, infinite or negative).
 *
 * <p>Input: {@link io.hpacontroller.core.forecast.PredictAnnotation} reads the annotation
 * {@code autoscaling.hpa-controller.io/predict} (JSON or YAML, e.g.
 * {@code {model: HoltWinters, season: 24h, horizon: 2m, history: 7d}}) or the mirror API's
 * {@code spec.predict}; {@link io.hpacontroller.core.forecast.PredictSetting#capacityProblem} says whether the
 * history fits the bound for the HPA's number of metrics.
 */
package io.hpacontroller.core.forecast;
