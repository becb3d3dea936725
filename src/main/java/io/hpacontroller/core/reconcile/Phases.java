package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.Retention;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.PredictionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.MetricComputation;
import io.hpacontroller.core.trace.ScheduleTrace;

import java.util.List;

/**
 * The values the phases of one sync ({@link Reconciler}'s {@code reconcileAutoscaler}) hand on, each immutable: the scale
 * read, the rule, the recommendation, the decision, and the end the sync comes to. A phase that ends the sync early
 * returns its value with {@code ended} set.
 */
final class Phases {

    private Phases() {
    }

    /** The target's scale as read, or the end of a sync that could not read it. */
    record ScaleRead(CrossVersionObjectReference ref, ScaleTarget scale, End ended) {
        static ScaleRead ended(End end) {
            return new ScaleRead(null, null, end);
        }
    }

    /**
     * What the sync decides under, before any metric (controls, bounds, behavior), or the end of a sync whose spec or
     * controls cannot be decided from.
     *
     * @param current             spec.replicas of the target
     * @param min                 the effective minReplicas (a scheduled rule may raise it)
     * @param schedule            the scheduled rule in force, for the trace
     * @param replicas            what decides the count before (or instead of) the metrics
     * @param behavior            the defaulted behavior, null when the HPA has none
     */
    record Rule(int current, int min, int max, ScheduleTrace schedule, List<MetricSpec> metricSpecs, boolean hasObjectOrExternal,
                ReplicaRule replicas, HpaHistory history, Behavior behavior, Retention retention, End ended) {
        static Rule ended(End end) {
            return new Rule(-1, -1, -1, ScheduleTrace.NONE, List.of(), false, null, null, null, null, end);
        }
    }

    /**
     * What the metrics, the fallback and the prediction recommend, before normalization.
     *
     * @param metrics    the metrics as computed, null when a rule decided without them
     * @param replicas   the recommendation (the rule's count when no metric was computed), -1 when the metrics give none
     * @param reason     the rescale reason so far
     * @param prediction what the prediction did ({@link PredictionTrace#NONE} without it)
     */
    record Recommendation(ReplicasForMetrics metrics, int replicas, String reason, PredictionTrace prediction) {
        /** The metrics were computed and give no recommendation: nothing is scaled. */
        boolean failed() {
            return metrics != null && metrics.replicas() < 0;
        }
    }

    /**
     * The count decided: the normalized recommendation, or the rule's.
     *
     * @param normalization what the normalizer did, null when it did not run
     */
    record Decision(int replicas, boolean rescale, String reason, Normalization normalization) {
        Action action(int current) {
            return !rescale ? Action.NONE : replicas > current ? Action.SCALE_UP : Action.SCALE_DOWN;
        }
    }

    /**
     * The end a sync comes to, built into its {@code ReconcileOutcome} at the one exit ({@link Reconciler}'s {@code finish}).
     *
     * @param status        the status the sync ends with, written unless unchanged
     * @param decided       whether the sync reached its decision: its trace then names a status that could not be written
     * @param failedMetrics the message of the FailedComputeMetricsReplicas event, recorded after the status write as
     *                      upstream does; null when the metrics did not fail
     */
    record End(HorizontalPodAutoscalerStatus status, DecisionTrace trace, List<MetricComputation> computations, boolean decided,
               String failedMetrics) {
    }
}
