package io.hpacontroller.sim;

import io.hpacontroller.core.calc.Tolerances;

/**
 * One sync of one HPA, as the timeline shows it. The decision and its reason come from the core's
 * {@link io.hpacontroller.core.trace.ReconcileOutcome}; the rest describes the simulated cluster.
 *
 * @param timeMillis       simulation time of the sync
 * @param hpa              the HPA's name
 * @param demand           the demand at that time
 * @param readyPods        Ready pods
 * @param replicas         the workload's spec.replicas after the sync
 * @param desiredReplicas  status.desiredReplicas after the sync
 * @param metricValue      the first metric's current value as the status shows it (utilization in percent,
 *                         or the value in the metric's unit), empty when it could not be computed
 * @param reason           why: the core's condition reasons, rescale reason or error
 * @param capacity         demand the Ready pods can serve, +infinity when the workload has no capacity
 * @param pods             pods that exist, Ready or not
 * @param proposedReplicas the largest metric proposal before stabilization and limits, -1 when none
 * @param action           scale_up, scale_down or none
 * @param trace            the key fields of the sync's decision trace
 * @param tolerances       the tolerance band the sync computed with (the flag, or the spec's behavior)
 */
public record TimelineRow(long timeMillis, String hpa, double demand, int readyPods, int replicas, int desiredReplicas,
                          String metricValue, String reason, double capacity, int pods, int proposedReplicas, String action,
                          TraceFields trace, Tolerances tolerances) {
}
