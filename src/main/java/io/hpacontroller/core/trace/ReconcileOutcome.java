package io.hpacontroller.core.trace;

import io.hpacontroller.core.HpaKey;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;

import java.util.List;

/**
 * What one sync of one HPA decided and why: the {@link DecisionTrace}, the status the sync ended with,
 * and the per-metric timings. The drivers report from it (metrics, logs, the simulator's timeline,
 * the decisions endpoint) instead of re-deriving anything.
 *
 * @param trace         the decision as it was made
 * @param status        the status after the sync
 * @param statusWritten whether the status subresource was written
 * @param computations  one entry per metric computed
 */
public record ReconcileOutcome(DecisionTrace trace, HorizontalPodAutoscalerStatus status, boolean statusWritten,
                               List<MetricComputation> computations) {

    /** The synced HPA's key. */
    public HpaKey key() {
        return trace.hpa();
    }

    /** spec.replicas of the target when read, -1 if the scale could not be read. */
    public int currentReplicas() {
        return trace.currentReplicas();
    }

    /** The largest metric proposal, -1 when the metrics gave no recommendation to act on. */
    public int proposedReplicas() {
        return trace.selectedMetric() < 0 ? -1 : trace.rawDesiredReplicas();
    }

    /** status.desiredReplicas after the sync. */
    public int desiredReplicas() {
        return status == null || status.getDesiredReplicas() == null ? trace.desiredReplicas() : status.getDesiredReplicas();
    }

    /** Whether spec.replicas was written. */
    public boolean rescaled() {
        return trace.rescaled();
    }

    /** Scale up or down when the scale was written, else none. */
    public Action action() {
        return trace.rescaled() ? trace.action() : Action.NONE;
    }

    public ErrorKind error() {
        return trace.error();
    }

    /** The error, null when none. */
    public String errorMessage() {
        return trace.errorMessage();
    }

    /** The description of the metric that drove the proposal, null when none. */
    public String metric() {
        return trace.selectedMetric() < 0 ? null : trace.metrics().get(trace.selectedMetric()).metric();
    }

    /** The reason recorded with a rescale ("cpu resource utilization (percentage of request) above target"). */
    public String rescaleReason() {
        return trace.reason();
    }

    /** Reason of the ScalingLimited condition when it is True, else null. */
    public String limitReason() {
        if (status == null || status.getConditions() == null) {
            return null;
        }
        for (HorizontalPodAutoscalerCondition c : status.getConditions()) {
            if (c != null && ConditionList.SCALING_LIMITED.equals(c.getType())) {
                return "True".equals(c.getStatus()) ? c.getReason() : null;
            }
        }
        return null;
    }

    /** Label values of upstream's {@code action} metric label. */
    public enum Action {
        SCALE_UP("scale_up"), SCALE_DOWN("scale_down"), NONE("none");

        private final String label;

        Action(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Label values of upstream's {@code error} metric label: a spec error, an internal (cluster) error, or none. */
    public enum ErrorKind {
        SPEC("spec"), INTERNAL("internal"), NONE("none");

        private final String label;

        ErrorKind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * One metric's computation.
     *
     * @param metricType Resource, Pods, ...
     * @param action     how its proposal compares to status.currentReplicas
     * @param error      its error kind
     * @param nanos      time spent, fetching included
     */
    public record MetricComputation(String metricType, Action action, ErrorKind error, long nanos) {
    }
}
