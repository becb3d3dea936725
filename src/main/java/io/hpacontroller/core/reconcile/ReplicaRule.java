package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.trace.ConditionList;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ScheduleTrace;

import java.util.List;

/**
 * What decides the count before (or instead of) the metrics: at zero replicas (upstream
 * {@code shouldComputeMetricsForZeroReplicas}: only a target this HPA scaled to zero is scaled from zero), above
 * maxReplicas, below minReplicas (raised by a scheduled rule, the reason says which); otherwise the metrics.
 *
 * @param computeMetrics  whether the metrics decide
 * @param rescale         whether a rescale may follow
 * @param desiredReplicas the count a rule set, 0 when the metrics decide
 * @param rescaleRule     the rule's name for the trace, null when the metrics decide
 * @param rescaleReason   the rule's reason for the rescale event, "" when none
 * @param zeroState       the scale-to-zero state, null when zero plays no part
 */
record ReplicaRule(boolean computeMetrics, boolean rescale, int desiredReplicas, String rescaleRule, String rescaleReason, String zeroState) {

    /** The rule for a target at {@code currentReplicas}; at zero it sets ScalingActive (and ScaledToZero) when scaling is disabled. */
    static ReplicaRule of(Sync s, boolean scaleToZero, int currentReplicas, int minReplicas, int maxReplicas, boolean hasObjectOrExternal,
                          ScheduleTrace schedule) {
        ConditionList conditions = s.conditions();
        if (currentReplicas == 0) {
            boolean scaledToZeroCondition = scaleToZero && conditions.isTrue(ConditionList.SCALED_TO_ZERO);
            boolean waking = minReplicas != 0 && scaledToZeroCondition;
            boolean computeMetrics = waking || (scaledToZeroCondition && hasObjectOrExternal);
            String zeroState = waking ? DecisionTrace.WAKING_FROM_ZERO : computeMetrics ? DecisionTrace.AT_ZERO_BY_HPA : DecisionTrace.AT_ZERO_DISABLED;
            if (computeMetrics) {
                return new ReplicaRule(true, true, 0, null, "", zeroState);
            }
            conditions.set(ConditionList.SCALING_ACTIVE, false, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero");
            if (!scaleToZero) {
                conditions.remove(ConditionList.SCALED_TO_ZERO);
            }
            return new ReplicaRule(false, false, 0, DecisionTrace.SCALING_DISABLED_AT_ZERO, "", zeroState);
        }
        if (currentReplicas > maxReplicas) {
            return new ReplicaRule(false, true, maxReplicas, DecisionTrace.ABOVE_MAX_REPLICAS, DecisionTrace.ABOVE_MAX_REPLICAS, null);
        }
        if (currentReplicas < minReplicas) {
            String reason = schedule.raised() ? DecisionTrace.BELOW_MIN_REPLICAS + " raised by " + schedule.activeRule()
                    : DecisionTrace.BELOW_MIN_REPLICAS;
            return new ReplicaRule(false, true, minReplicas, DecisionTrace.BELOW_MIN_REPLICAS, reason, null);
        }
        return new ReplicaRule(true, true, 0, null, "", null);
    }

    /** What changed the count without the normalizer: the bound a rule brought it to. */
    List<String> constraintsApplied() {
        return DecisionTrace.ABOVE_MAX_REPLICAS.equals(rescaleRule) ? List.of(Normalization.MAX_REPLICAS)
                : DecisionTrace.BELOW_MIN_REPLICAS.equals(rescaleRule) ? List.of(Normalization.MIN_REPLICAS)
                : List.of();
    }

    /**
     * ScaledToZero after a rescale: True when this HPA scaled the target to zero, False otherwise; absent without the gate.
     * Returns {@link DecisionTrace#SCALED_TO_ZERO} for the trace when it scaled to zero, else null.
     */
    static String scaledToZero(Sync s, boolean scaleToZero, int currentReplicas, int desiredReplicas, int minReplicas, boolean hasObjectOrExternal) {
        if (!scaleToZero) {
            s.conditions().remove(ConditionList.SCALED_TO_ZERO);
        } else if (currentReplicas > 0 && desiredReplicas == 0 && minReplicas == 0 && hasObjectOrExternal) {
            s.conditions().set(ConditionList.SCALED_TO_ZERO, true, "ScaledToZero", "the HPA controller scaled the workload to zero");
            return DecisionTrace.SCALED_TO_ZERO;
        } else {
            s.conditions().set(ConditionList.SCALED_TO_ZERO, false, "NotScaledToZero", "the HPA controller did not scale the workload to zero");
        }
        return null;
    }
}
