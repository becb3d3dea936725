package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;

import java.util.List;

/**
 * What one sync of one HPA decided and why: the value the drivers report (metrics, logs, the
 * simulator's timeline) instead of re-deriving anything.
 *
 * @param key              namespace/name
 * @param currentReplicas  spec.replicas of the target when read, -1 if the scale could not be read
 * @param proposedReplicas the largest metric proposal, -1 when no metric was computed
 * @param desiredReplicas  status.desiredReplicas after the sync
 * @param rescaled         whether spec.replicas was written
 * @param action           scale up, scale down or none
 * @param error            what kind of error the sync ended with
 * @param errorMessage     the error, null when none
 * @param metric           description of the metric that drove the proposal, null when none
 * @param rescaleReason    the reason recorded with a rescale ("cpu resource utilization (percentage of request) above target")
 * @param limitReason      reason of the ScalingLimited condition when it is True, else null
 * @param computations     one entry per metric computed
 * @param status           the status after the sync
 * @param statusWritten    whether the status subresource was written
 */
public record ReconcileOutcome(String key, int currentReplicas, int proposedReplicas, int desiredReplicas, boolean rescaled,
                               Action action, ErrorKind error, String errorMessage, String metric, String rescaleReason,
                               String limitReason, List<MetricComputation> computations,
                               HorizontalPodAutoscalerStatus status, boolean statusWritten) {

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
