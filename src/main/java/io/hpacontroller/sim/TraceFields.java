package io.hpacontroller.sim;

import io.hpacontroller.core.calc.ToleranceVerdict;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.Stabilization;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;

import java.util.List;

/**
 * The key fields of one sync's {@link DecisionTrace}, as the timeline and the report show them: read from the
 * trace, decided nothing here. The metric fields describe the first entry of {@code spec.metrics}, the one the
 * timeline's metric_value shows. Counts are -1, numbers NaN and texts null when the trace has none.
 *
 * @param metric             the first metric's description ("cpu resource utilization (percentage of request)")
 * @param metricCurrent      its current value: percent of request for a Utilization target, else in the metric's unit
 * @param metricTarget       its target, in the same unit
 * @param usageRatio         the usage ratio its tolerance check looked at (the rebalanced one when pods were filled in)
 * @param tolerance          the tolerance of the direction that ratio points in
 * @param withinTolerance    whether that ratio was inside the tolerance; null when there was no check
 * @param selectedMetric     the description of the metric whose proposal won
 * @param stabilizedReplicas the recommendation after the stabilization window, before the rate limits and min/max
 * @param stabilizationWindow {@link Stabilization#SCALE_DOWN} or {@link Stabilization#SCALE_UP} when a window changed
 *                           the count
 * @param heldScaleDown      whether the scale-down window kept the count above what the metrics and min/max give
 * @param rateLimit          the most (scale-up) or fewest (scale-down) replicas the rate limit allowed
 * @param constraintsApplied what changed the count from the proposal to the decision (upstream's names)
 * @param minReplicas        minReplicas as the sync read it
 * @param maxReplicas        maxReplicas as the sync read it
 * @param errorReason        the reason of the error the sync met (FailedGetResourceMetric, ...)
 * @param errorMessage       that error
 * @param decision           the decision in words ({@link DecisionSummary})
 * @param metricAgeMillis    how old the first metric's sample was at the sync ({@link MetricTrace#ageMillis}), -1 when unknown
 */
public record TraceFields(String metric, double metricCurrent, double metricTarget, double usageRatio, double tolerance,
                          Boolean withinTolerance, String selectedMetric, int stabilizedReplicas, String stabilizationWindow,
                          boolean heldScaleDown, int rateLimit, List<String> constraintsApplied, int minReplicas, int maxReplicas,
                          String errorReason, String errorMessage, String decision, long metricAgeMillis) {

    static TraceFields of(DecisionTrace t) {
        MetricTrace first = t.metrics().isEmpty() || t.metrics().get(0).failed() ? null : t.metrics().get(0);
        ToleranceVerdict verdict = first == null || first.calculation() == null ? null : first.calculation().tolerance();
        String selected = t.selectedMetric() < 0 ? null : t.metrics().get(t.selectedMetric()).metric();
        Normalization n = t.normalization();
        Stabilization s = n == null ? null : n.stabilization();
        boolean held = s != null && Stabilization.SCALE_DOWN.equals(s.window())
                && DecisionSummary.withinBounds(t, n.stabilized()) > DecisionSummary.withinBounds(t, n.recommendation());
        return new TraceFields(first == null ? null : first.metric(), first == null ? Double.NaN : first.current(),
                first == null ? Double.NaN : first.target(), verdict == null ? Double.NaN : verdict.ratio(),
                verdict == null ? Double.NaN : verdict.tolerance(), verdict == null ? null : verdict.within(), selected,
                n == null ? -1 : n.stabilized(), s == null ? null : s.window(), held,
                n == null || n.rateLimit() == null ? -1 : n.rateLimit().limit(), t.constraintsApplied(), t.minReplicas(), t.maxReplicas(),
                t.errorReason(), t.errorMessage(), DecisionSummary.of(t), first == null ? -1 : first.ageMillis());
    }
}
