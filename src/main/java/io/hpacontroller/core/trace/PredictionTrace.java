package io.hpacontroller.core.trace;

import java.util.List;

/**
 * What predictive scaling (annotation {@code autoscaling.hpa-controller.io/predict}) proposed at one sync.
 *
 * @param setting  the setting in words ({@code HoltWinters season 24h0m0s, horizon 5m0s, history 72h0m0s}), null when the HPA
 *                 does not predict
 * @param metrics  one entry per metric that gave a reactive proposal, in spec order
 * @param replicas the highest predicted proposal, -1 when no metric gave one
 * @param raised   whether it was above the reactive recommendation (and so replaced it before min/max,
 *                 stabilization and policies)
 * @param note     what else happened (the stored load could not be read and learning started again), null when nothing
 */
public record PredictionTrace(String setting, List<PredictedMetric> metrics, int replicas, boolean raised, String note) {

    /** The HPA does not predict. */
    public static final PredictionTrace NONE = new PredictionTrace(null, List.of(), -1, false, null);

    public PredictionTrace {
        metrics = metrics == null ? List.of() : List.copyOf(metrics);
    }

    public boolean active() {
        return setting != null;
    }

    /**
     * One metric's forecast and the proposal it gives.
     *
     * @param metric    the metric's identity ({@code Resource/cpu}, {@code External/queue_depth})
     * @param load      the forecast load (the metric's total over its pods: percent-pods for a utilization), NaN when none
     * @param at        the minute the forecast is for (epoch millis), 0 when none
     * @param replicas  the predicted proposal through the calculator's rule, -1 when none (not enough history, discarded)
     * @param discarded whether a forecast was made and thrown away (NaN, negative, or more than maxReplicas worth)
     * @param message   the model and its fit, or why there is no proposal
     */
    public record PredictedMetric(String metric, double load, long at, int replicas, boolean discarded, String message) {
    }
}
