package io.hpacontroller.core.trace;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;

import java.util.List;

/**
 * What one sync of one HPA decided and why, as a value built while the decision was made: every metric's
 * proposal (or error), which one won, the normalization (stabilization window, rate limit, min/max), the
 * scale-to-zero state, the final count and the action. {@link DecisionSummary} says it in one sentence.
 *
 * <p>Names follow upstream's where it has them ({@code rawDesiredReplicas}, {@code constraintsApplied} in
 * kubernetes/kubernetes#138992, KEP-6107).
 *
 * @param hpa                the HPA's key (its wire form, "namespace/name", in JSON)
 * @param time               when the sync ran (epoch millis)
 * @param currentReplicas    spec.replicas of the target as read, -1 when the scale could not be read
 * @param minReplicas        spec.minReplicas (1 when unset), -1 before the bounds were read
 * @param maxReplicas        spec.maxReplicas, -1 before the bounds were read
 * @param metrics            one entry per metric computed, in spec order; empty when none was
 * @param selectedMetric     the index of the metric whose proposal won (the highest; the first of equals), -1 when none
 * @param metricsVerdict     {@link #ALL_METRICS_FAILED}, {@link #FAILED_METRIC_BLOCKS_SCALE_DOWN}, or null when the
 *                           metrics gave a recommendation
 * @param rawDesiredReplicas the highest metric proposal, before normalization; -1 when none
 * @param rescaleRule        the rule that set the count without the metrics ({@link #ABOVE_MAX_REPLICAS},
 *                           {@link #BELOW_MIN_REPLICAS}, {@link #SCALING_DISABLED_AT_ZERO}), null when the metrics did
 * @param normalization      stabilization, rate limit and min/max; null when the normalizer did not run
 * @param constraintsApplied what changed the count on its way from rawDesiredReplicas to desiredReplicas
 * @param scaleToZero        the scale-to-zero state ({@link #WAKING_FROM_ZERO}, {@link #SCALED_TO_ZERO}, ...), null when
 *                           zero plays no part
 * @param desiredReplicas    the count this sync decided (the current count when it decided no change); -1 when it
 *                           decided nothing
 * @param action             scale up, scale down or none
 * @param rescaled           whether the scale was written (false when the write failed)
 * @param reason             the reason recorded with a rescale ("cpu resource utilization (percentage of request) above target")
 * @param error              the kind of error the sync ended with
 * @param errorReason        the condition or event reason of that error (FailedGetScale, InvalidReplicaBounds, ...), null when none
 * @param errorMessage       the error, null when none
 * @param controls           the per-HPA controls the sync decided under ({@link ControlsTrace#NONE} for none, or when they
 *                           were invalid); in Preview, {@code action} and {@code desiredReplicas} are what the sync would
 *                           have written, and {@code rescaled} is false
 * @param schedule           the scheduled rules as this sync applied them ({@link ScheduleTrace#NONE} without rules);
 *                           {@code minReplicas} above is the effective one (raised by the active rule)
 * @param prediction         what predictive scaling proposed ({@link PredictionTrace#NONE} without it); when it raised the
 *                           recommendation, the normalizer started from its proposal instead of {@code rawDesiredReplicas}
 */
public record DecisionTrace(HpaKey hpa, long time, int currentReplicas, int minReplicas, int maxReplicas, List<MetricTrace> metrics,
                            int selectedMetric, String metricsVerdict, int rawDesiredReplicas, String rescaleRule,
                            Normalization normalization, List<String> constraintsApplied, String scaleToZero, int desiredReplicas,
                            Action action, boolean rescaled, String reason, ErrorKind error, String errorReason, String errorMessage,
                            ControlsTrace controls, ScheduleTrace schedule, PredictionTrace prediction) {

    /** Every metric failed: nothing to decide from. */
    public static final String ALL_METRICS_FAILED = "all metrics failed";
    /** A metric failed and the others would scale down: upstream does nothing rather than scale down on part of the data. */
    public static final String FAILED_METRIC_BLOCKS_SCALE_DOWN = "a metric failed, so no scale-down";

    /** The target has more replicas than maxReplicas: it is brought to maxReplicas without the metrics. */
    public static final String ABOVE_MAX_REPLICAS = "Current number of replicas above Spec.MaxReplicas";
    /** The target has fewer replicas than minReplicas: it is brought to minReplicas without the metrics. */
    public static final String BELOW_MIN_REPLICAS = "Current number of replicas below Spec.MinReplicas";
    /** The target is at 0 and the HPA did not put it there: scaling is disabled. */
    public static final String SCALING_DISABLED_AT_ZERO = "ScalingDisabled";

    /** At 0 replicas, woken because minReplicas was raised above 0 (the HPA had scaled the target to zero). */
    public static final String WAKING_FROM_ZERO = "at zero: minReplicas raised, waking";
    /** At 0 replicas, scaled to zero by this HPA: an Object or External metric may wake it. */
    public static final String AT_ZERO_BY_HPA = "at zero: scaled to zero by this HPA, metrics may wake it";
    /** At 0 replicas, not put there by this HPA (or the HPAScaleToZero gate is off): scaling is disabled. */
    public static final String AT_ZERO_DISABLED = "at zero: not scaled to zero by this HPA, scaling disabled";
    /** This sync scaled the target to zero. */
    public static final String SCALED_TO_ZERO = "scaled to zero";

    public DecisionTrace {
        metrics = metrics == null ? List.of() : aged(metrics, time);
        constraintsApplied = constraintsApplied == null ? List.of() : constraintsApplied;
        controls = controls == null ? ControlsTrace.NONE : controls;
        schedule = schedule == null ? ScheduleTrace.NONE : schedule;
        prediction = prediction == null ? PredictionTrace.NONE : prediction;
    }

    /** The metrics with their samples' age at the sync ({@link MetricTrace#ageMillis}), the same list when it is set already. */
    private static List<MetricTrace> aged(List<MetricTrace> metrics, long time) {
        for (MetricTrace m : metrics) {
            if (m.agedAt(time) != m) {
                return metrics.stream().map(x -> x.agedAt(time)).toList();
            }
        }
        return metrics;
    }

    /** The recommendation the normalizer started from: the metrics' highest proposal, or the prediction when it was higher. */
    public int recommendation() {
        return prediction.raised() ? prediction.replicas() : rawDesiredReplicas;
    }

    /** A trace without per-HPA controls, scheduled or predictive scaling. */
    public DecisionTrace(HpaKey hpa, long time, int currentReplicas, int minReplicas, int maxReplicas, List<MetricTrace> metrics,
                         int selectedMetric, String metricsVerdict, int rawDesiredReplicas, String rescaleRule,
                         Normalization normalization, List<String> constraintsApplied, String scaleToZero, int desiredReplicas,
                         Action action, boolean rescaled, String reason, ErrorKind error, String errorReason, String errorMessage) {
        this(hpa, time, currentReplicas, minReplicas, maxReplicas, metrics, selectedMetric, metricsVerdict, rawDesiredReplicas, rescaleRule,
                normalization, constraintsApplied, scaleToZero, desiredReplicas, action, rescaled, reason, error, errorReason, errorMessage,
                ControlsTrace.NONE, ScheduleTrace.NONE, PredictionTrace.NONE);
    }

    /** A trace of a sync of {@code hpa} at {@code time} that decided nothing yet: every other field as before the scale was read. */
    public static Builder builder(HpaKey hpa, long time) {
        return new Builder(hpa, time);
    }

    /** A builder holding this trace's fields. */
    public Builder toBuilder() {
        Builder b = new Builder(hpa, time);
        b.currentReplicas = currentReplicas;
        b.minReplicas = minReplicas;
        b.maxReplicas = maxReplicas;
        b.metrics = metrics;
        b.selectedMetric = selectedMetric;
        b.metricsVerdict = metricsVerdict;
        b.rawDesiredReplicas = rawDesiredReplicas;
        b.rescaleRule = rescaleRule;
        b.normalization = normalization;
        b.constraintsApplied = constraintsApplied;
        b.scaleToZero = scaleToZero;
        b.desiredReplicas = desiredReplicas;
        b.action = action;
        b.rescaled = rescaled;
        b.reason = reason;
        b.error = error;
        b.errorReason = errorReason;
        b.errorMessage = errorMessage;
        b.controls = controls;
        b.schedule = schedule;
        b.prediction = prediction;
        return b;
    }

    /** Assembles a {@link DecisionTrace} as a sync goes: each step sets what it decided. */
    public static final class Builder {
        private final HpaKey hpa;
        private final long time;
        private int currentReplicas = -1;
        private int minReplicas = -1;
        private int maxReplicas = -1;
        private List<MetricTrace> metrics = List.of();
        private int selectedMetric = -1;
        private String metricsVerdict;
        private int rawDesiredReplicas = -1;
        private String rescaleRule;
        private Normalization normalization;
        private List<String> constraintsApplied = List.of();
        private String scaleToZero;
        private int desiredReplicas = -1;
        private Action action = Action.NONE;
        private boolean rescaled;
        private String reason = "";
        private ErrorKind error = ErrorKind.NONE;
        private String errorReason;
        private String errorMessage;
        private ControlsTrace controls = ControlsTrace.NONE;
        private ScheduleTrace schedule = ScheduleTrace.NONE;
        private PredictionTrace prediction = PredictionTrace.NONE;

        private Builder(HpaKey hpa, long time) {
            this.hpa = hpa;
            this.time = time;
        }

        public Builder replicas(int currentReplicas, int minReplicas, int maxReplicas) {
            this.currentReplicas = currentReplicas;
            this.minReplicas = minReplicas;
            this.maxReplicas = maxReplicas;
            return this;
        }

        public Builder metrics(List<MetricTrace> metrics, int selectedMetric, String metricsVerdict, int rawDesiredReplicas) {
            this.metrics = metrics;
            this.selectedMetric = selectedMetric;
            this.metricsVerdict = metricsVerdict;
            this.rawDesiredReplicas = rawDesiredReplicas;
            return this;
        }

        public Builder rescaleRule(String rescaleRule) {
            this.rescaleRule = rescaleRule;
            return this;
        }

        public Builder normalization(Normalization normalization, List<String> constraintsApplied) {
            this.normalization = normalization;
            this.constraintsApplied = constraintsApplied;
            return this;
        }

        public Builder scaleToZero(String scaleToZero) {
            this.scaleToZero = scaleToZero;
            return this;
        }

        public Builder decision(int desiredReplicas, Action action, boolean rescaled, String reason) {
            this.desiredReplicas = desiredReplicas;
            this.action = action;
            this.rescaled = rescaled;
            this.reason = reason;
            return this;
        }

        public Builder error(ErrorKind error, String errorReason, String errorMessage) {
            this.error = error;
            this.errorReason = errorReason;
            this.errorMessage = errorMessage;
            return this;
        }

        public Builder controls(ControlsTrace controls) {
            this.controls = controls;
            return this;
        }

        public Builder ahead(ScheduleTrace schedule, PredictionTrace prediction) {
            this.schedule = schedule;
            this.prediction = prediction;
            return this;
        }

        public DecisionTrace build() {
            return new DecisionTrace(hpa, time, currentReplicas, minReplicas, maxReplicas, metrics, selectedMetric, metricsVerdict,
                    rawDesiredReplicas, rescaleRule, normalization, constraintsApplied, scaleToZero, desiredReplicas, action, rescaled, reason,
                    error, errorReason, errorMessage, controls, schedule, prediction);
        }
    }
}
