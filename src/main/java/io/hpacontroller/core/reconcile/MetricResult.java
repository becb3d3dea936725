package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;

/** What computing one metric gave: a proposal, or a failure to report. */
public sealed interface MetricResult {

    /**
     * A replica proposal.
     *
     * @param replicas  proposed replica count
     * @param status    the entry for status.currentMetrics
     * @param metric    description of the metric for messages ("cpu resource utilization (percentage of request)")
     * @param timestamp epoch millis of the metric sample, 0 when unknown
     */
    record Proposal(int replicas, MetricStatus status, String metric, long timestamp) implements MetricResult {
    }

    /**
     * The metric could not be computed.
     *
     * @param reason      reason of the event and of the ScalingActive=False condition (FailedGetResourceMetric, ...)
     * @param message     the error, as the event reports it
     * @param error       the error wrapped with the metric it belongs to
     * @param specError   the HPA's spec is at fault (no retry will fix it), not the cluster
     */
    record Failure(String reason, String message, String error, boolean specError) implements MetricResult {
    }
}
