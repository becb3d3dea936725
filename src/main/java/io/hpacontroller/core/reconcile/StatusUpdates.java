package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.reconcile.Phases.End;
import io.hpacontroller.core.trace.ConditionList;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;

import java.util.Objects;

/**
 * The HPA's status as one sync meets and leaves it, through the {@link StatusWriter} port: another writer of it noted
 * at the start ({@link #noteOtherWriter}), and the one exit of every sync ({@link #finish}), which writes the status
 * the sync ended with unless it is unchanged and builds the {@link ReconcileOutcome}.
 */
final class StatusUpdates {

    private final StatusWriter statusWriter;
    private final EventRecorder events;

    StatusUpdates(StatusWriter statusWriter, EventRecorder events) {
        this.statusWriter = Objects.requireNonNull(statusWriter);
        this.events = Objects.requireNonNull(events);
    }

    /**
     * ConflictingController: set (True, reason {@value Reconciler#STATUS_WRITTEN_BY_ANOTHER}) with a Warning event when the status
     * port has seen another writer of the status and the condition is not set yet, so both come once per conflict, not
     * at every sync; removed once the port knows nobody else wrote the status lately; left as it is while it cannot tell.
     * It stands beside the other conditions on every path (a conflict stops nothing: the other writer is what must stop).
     */
    void noteOtherWriter(Sync s) {
        OtherStatusWriter other = statusWriter.otherWriter(s.hpa());
        if (other.message() != null) {
            if (!s.conditions().isTrue(ConditionList.CONFLICTING_CONTROLLER)) {
                events.record(s.hpa(), EventRecorder.Type.Warning, Reconciler.CONFLICTING_CONTROLLER, other.message());
                s.conditions().set(ConditionList.CONFLICTING_CONTROLLER, true, Reconciler.STATUS_WRITTEN_BY_ANOTHER, other.message());
            }
        } else if (other.known()) {
            s.conditions().remove(ConditionList.CONFLICTING_CONTROLLER);
        }
    }

    /**
     * The one exit of a sync: the status written unless unchanged ({@link #updateStatusIfNeeded}), then (as upstream)
     * the FailedComputeMetricsReplicas event of metrics that gave no recommendation; the trace of a decided sync names a
     * status that could not be written.
     */
    ReconcileOutcome finish(Sync s, End end) {
        StatusUpdate update = updateStatusIfNeeded(s, end.status(), end.trace());
        if (end.failedMetrics() != null) {
            events.record(s.hpa(), EventRecorder.Type.Warning, "FailedComputeMetricsReplicas", end.failedMetrics());
        }
        DecisionTrace trace = update.failure() == null || !end.decided() ? end.trace() : end.trace().toBuilder()
                .error(ErrorKind.INTERNAL, "FailedUpdateStatus", "failed to update status for " + s.hpa().getMetadata().getName()).build();
        return new ReconcileOutcome(trace, update.status(), update.written(), end.computations());
    }

    /**
     * What {@link #updateStatusIfNeeded} did.
     *
     * @param status  the status the sync ended with
     * @param written whether it was written
     * @param failure the write's error, null when it did not fail
     */
    private record StatusUpdate(HorizontalPodAutoscalerStatus status, boolean written, String failure) {
    }

    /**
     * Upstream {@code updateStatusIfNeeded}: writes the status unless it is what the HPA already has. The writer also
     * gets the decision of this sync (a mirror HPA's status carries it); it does not count in the comparison.
     */
    private StatusUpdate updateStatusIfNeeded(Sync s, HorizontalPodAutoscalerStatus next, DecisionTrace decided) {
        if (StatusEquality.same(s.original(), next)) {
            statusWriter.unchanged(s.hpa());
            return new StatusUpdate(next, false, null);
        }
        try {
            statusWriter.write(s.hpa(), next, decided);
            return new StatusUpdate(next, true, null);
        } catch (ApiException e) {
            events.record(s.hpa(), EventRecorder.Type.Warning, "FailedUpdateStatus", e.getMessage());
            return new StatusUpdate(next, false, e.getMessage());
        }
    }

}
