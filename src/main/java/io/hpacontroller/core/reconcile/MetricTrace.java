package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.calc.Proposal;

/**
 * One entry of {@code spec.metrics} as this sync computed it: what it measured against which target, and
 * the calculator's proposal with the pods by group, the rebalancing and the tolerance check; or the error.
 *
 * @param type         Resource, ContainerResource, Pods, Object or External (as written; "" when missing)
 * @param name         the resource or metric name, null when the spec does not name one
 * @param metric       the description upstream uses in messages ("cpu resource utilization (percentage of
 *                     request)"), null when the metric failed
 * @param targetType   Utilization, AverageValue or Value; null when the metric failed
 * @param target       the target: percent of request for Utilization, else the value in the metric's unit
 * @param current      the current value in the same unit (the utilization, the average per pod, or the total);
 *                     NaN when the metric failed
 * @param timestamp    the sample's time (epoch millis), 0 when unknown
 * @param calculation  how the calculator got to the proposal; null when the metric failed
 * @param replicas     the proposal, -1 when the metric failed
 * @param errorReason  the reason of the event and of ScalingActive=False (FailedGetResourceMetric, ...), null when none
 * @param errorMessage the error as the event and the condition say it, null when none
 * @param error        the error as the sync reports it (upstream's {@code err}, wrapped with the metric), null when none
 * @param specError    whether the spec is at fault (no retry fixes it) rather than the cluster
 */
public record MetricTrace(String type, String name, String metric, String targetType, double target, double current, long timestamp,
                          Proposal calculation, int replicas, String errorReason, String errorMessage, String error, boolean specError) {

    public boolean failed() {
        return errorReason != null;
    }
}
