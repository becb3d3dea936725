package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.Mode;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.MetricFailures;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.trace.ConditionList;
import io.hpacontroller.core.trace.ControlsTrace;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;

/**
 * The controls gate: what an HPA's {@link HpaControls} (its annotations, or the mirror API's fields) do to a sync
 * besides the values they replace. Invalid controls stop it; {@link Mode#SUSPENDED} reads nothing and writes one
 * condition; {@link Mode#PREVIEW} decides and writes status, conditions and events but never the scale.
 */
final class ControlsGate {

    private final EventRecorder events;
    private final HistoryStore histories;

    ControlsGate(EventRecorder events, HistoryStore histories) {
        this.events = events;
        this.histories = histories;
    }

    /**
     * Controls that cannot be read: the HPA does not scale (no scale, pod or metric is read, no scale written),
     * ScalingActive=False with the message naming every annotation or field at fault and what it accepts, a
     * Warning event. The history is left as it is. Returns the trace.
     */
    DecisionTrace invalid(Sync s, String message) {
        String reason = message.startsWith(ControlAnnotations.PREFIX) ? Reconciler.INVALID_ANNOTATION : Reconciler.INVALID_SPEC;
        events.record(s.hpa(), EventRecorder.Type.Warning, reason, message);
        s.conditions().set(ConditionList.SCALING_ACTIVE, false, reason, "the HPA does not scale until its controls are fixed: " + message);
        return s.failure(-1, -1, -1, ErrorKind.SPEC, reason, message, ControlsTrace.NONE);
    }

    /**
     * {@link Mode#SUSPENDED}: no scale, pod or metric is read, nothing is written but ScalingActive=False
     * {@value Reconciler#SUSPENDED} (once: the status is written only when it changed), no event. The history is kept as
     * it is, except the metrics' failures: nothing is observed while suspended, so a failure run ends. Returns the trace.
     */
    DecisionTrace suspended(Sync s) {
        MetricFailures failures = histories.metricFailures(s.key());
        if (MetricFallback.anyRemembered(failures)) {
            MetricFallback.forgetAll(failures, s.hpa(), events, s.now(), "", false);
        }
        s.conditions().set(ConditionList.SCALING_ACTIVE, false, Reconciler.SUSPENDED,
                "the HPA is suspended (mode Suspended): no metrics are read and the target's scale is not written");
        return s.failure(-1, -1, -1, ErrorKind.NONE, null, null, s.controlsTrace());
    }

    /**
     * {@link Mode#PREVIEW}: the decision made as in Auto, not written. AbleToScale=False {@value Reconciler#PREVIEW} says
     * what would have been written, a would-be rescale is a Normal {@value Reconciler#PREVIEW_RESCALE} event,
     * status.desiredReplicas is the would-be count, lastScaleTime stays. The history stays what Auto would find: the
     * recommendation was recorded (the stabilization windows hold recommendations whether or not they were written), but
     * no scale event is, because the target did not change: the policies limit changes of the target, and after a switch
     * to Auto they must count the changes that happened, not the ones previewed.
     */
    void preview(Sync s, int currentReplicas, Normalization normalization, int desiredReplicas, Action action, String rescaleReason) {
        String would = action == Action.NONE ? "would keep " + currentReplicas + " replicas"
                : "would scale from " + currentReplicas + " to " + desiredReplicas + " (" + rescaleReason + ")";
        if (normalization != null) {
            would += "; " + normalization.ableToScaleReason() + ": " + normalization.ableToScaleMessage();
        }
        s.previewHolds(would);
        if (action != Action.NONE) {
            events.record(s.hpa(), EventRecorder.Type.Normal, Reconciler.PREVIEW_RESCALE, "New size: " + desiredReplicas + "; reason: "
                    + rescaleReason + "; not written (mode Preview)");
        }
    }
}
