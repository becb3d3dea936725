package io.hpacontroller.core.calc;

/**
 * One metric's replica proposal and how the calculator got there: the raw usage ratio and the count it
 * gives, the pods by group, the rebalancing when pods were filled in, and the tolerance check.
 *
 * @param replicas    the proposal
 * @param usageRatio  current over target, before any rebalancing
 * @param rawReplicas {@code ceil(usageRatio x pods)} before the tolerance; -1 when it was not computed (a
 *                    Value metric inside the tolerance, whose pods are not listed)
 * @param pods        the pods by group, null for metrics not computed per pod (Object, External)
 * @param rebalancing the second look with missing or unready pods filled in, null when there was none
 * @param tolerance   the tolerance check that decided, null when none applies (a Value metric at 0 replicas)
 * @param usage       the current value in milli-units: the average per pod, or the total (Value targets),
 *                    or the total divided over the replicas (AverageValue targets of Object and External)
 * @param utilization the utilization in percent of request, -1 when the target is not a utilization
 */
public record Proposal(int replicas, double usageRatio, int rawReplicas, PodCounts pods, Rebalancing rebalancing,
                       ToleranceVerdict tolerance, long usage, int utilization) {
}
