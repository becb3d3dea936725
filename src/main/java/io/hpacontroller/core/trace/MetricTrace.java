package io.hpacontroller.core.trace;

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
 * @param failingSince when the failed metric started failing (epoch millis) as the fallback control measures it, 0 when
 *                     that control does not measure it
 * @param fallback     whether the failed metric proposes the fallback control's replicas ({@code replicas})
 * @param ageMillis    how old the sample was at the sync (ms: the sync's time minus {@code timestamp}, the end of the
 *                     sample's window; 0 for one stamped after the sync, a clock skew); -1 when unknown. The
 *                     {@link DecisionTrace} sets it from its time (issue 40)
 */
public record MetricTrace(String type, String name, String metric, String targetType, double target, double current, long timestamp,
                          Proposal calculation, int replicas, String errorReason, String errorMessage, String error, boolean specError,
                          long failingSince, boolean fallback, long ageMillis) {

    /** A metric whose age at the sync the {@link DecisionTrace} sets. */
    public MetricTrace(String type, String name, String metric, String targetType, double target, double current, long timestamp,
                       Proposal calculation, int replicas, String errorReason, String errorMessage, String error, boolean specError,
                       long failingSince, boolean fallback) {
        this(type, name, metric, targetType, target, current, timestamp, calculation, replicas, errorReason, errorMessage, error, specError,
                failingSince, fallback, -1);
    }

    /** A metric as computed, before the fallback control looked at it. */
    public MetricTrace(String type, String name, String metric, String targetType, double target, double current, long timestamp,
                       Proposal calculation, int replicas, String errorReason, String errorMessage, String error, boolean specError) {
        this(type, name, metric, targetType, target, current, timestamp, calculation, replicas, errorReason, errorMessage, error, specError,
                0, false);
    }

    /** Whether the metric failed (it may still propose the fallback). */
    public boolean failed() {
        return errorReason != null;
    }

    /** Whether the metric gave a proposal: its own, or the fallback of a failed one. */
    public boolean proposes() {
        return !failed() || fallback;
    }

    /** "External metric queue_depth", "Resource metric cpu": the metric in a sentence. */
    public String described() {
        return (type == null || type.isEmpty() ? "metric" : type + " metric") + (name == null ? "" : " " + name);
    }

    /** This failed metric, failing since {@code since}, and proposing {@code fallbackReplicas} when that is not -1. */
    public MetricTrace failingSince(long since, int fallbackReplicas) {
        boolean fb = fallbackReplicas >= 0;
        return new MetricTrace(type, name, metric, targetType, target, current, timestamp, calculation, fb ? fallbackReplicas : replicas,
                errorReason, errorMessage, error, specError, since, fb, ageMillis);
    }

    /** This metric as read by a sync at {@code syncTime} (epoch ms): its {@link #ageMillis} set. */
    public MetricTrace agedAt(long syncTime) {
        long age = timestamp > 0 ? Math.max(0, syncTime - timestamp) : -1;
        return age == ageMillis ? this : new MetricTrace(type, name, metric, targetType, target, current, timestamp, calculation, replicas,
                errorReason, errorMessage, error, specError, failingSince, fallback, age);
    }

    /** "cpu sampled 1.2 s before this sync" (the metric's name, else its type); null when the sample's time is unknown. */
    public String sampledBeforeSync() {
        if (ageMillis < 0) {
            return null;
        }
        String label = name != null ? name : type == null || type.isEmpty() ? "metric" : type;
        return label + " sampled " + String.format(java.util.Locale.ROOT, "%.1f", ageMillis / 1000.0) + " s before this sync";
    }
}
