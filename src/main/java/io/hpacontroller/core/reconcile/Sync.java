package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.HpaKey;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.Mode;
import io.hpacontroller.core.trace.ConditionList;
import io.hpacontroller.core.trace.ControlsTrace;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The HPA being synced, its controls and the status it started with: the inputs every phase of one sync shares. The
 * phases return what they decided as values ({@link Phases}); the one thing they share that changes is the conditions,
 * the status being built (upstream sets them on its copy of the HPA).
 */
record Sync(HorizontalPodAutoscaler hpa, HpaKey key, String namespace, long now, HorizontalPodAutoscalerStatus original,
            ConditionList conditions, HpaControls controls) {

    /**
     * The reasons of this project's own on upstream's condition types (the controls and the kept history): a sync that
     * does not set one again removes it ({@link ConditionList#removeUnsetWithReasons}), so "AbleToScale False Preview"
     * does not outlive the mode. Upstream's own reasons are set as upstream sets them, each sync.
     */
    static final Set<String> OWN_REASONS = Set.of(Reconciler.PREVIEW, Reconciler.FAILED_UPDATE_HISTORY, Reconciler.SUSPENDED,
            Reconciler.INVALID_ANNOTATION, Reconciler.INVALID_SPEC, MetricFallback.STARTED);

    boolean preview() {
        return controls.mode() == Mode.PREVIEW;
    }

    ControlsTrace controlsTrace() {
        return ControlsTrace.of(controls);
    }

    String reference() {
        CrossVersionObjectReference ref = hpa.getSpec() == null ? null : hpa.getSpec().getScaleTargetRef();
        return ref == null ? "<none>/" + namespace : ref.getKind() + "/" + namespace + "/" + ref.getName();
    }

    int originalDesired() {
        return original.getDesiredReplicas() == null ? 0 : original.getDesiredReplicas();
    }

    /** In Preview, AbleToScale=False {@value Reconciler#PREVIEW} with what the sync would do. */
    void previewHolds(String would) {
        if (preview()) {
            conditions.set(ConditionList.ABLE_TO_SCALE, false, Reconciler.PREVIEW, "mode Preview: the HPA controller does not write the target's scale; "
                    + would);
        }
    }

    /** Upstream {@code setStatus}: the status this sync ends with. */
    HorizontalPodAutoscalerStatus setStatus(int currentReplicas, int desiredReplicas, List<MetricStatus> metricStatuses, boolean rescale) {
        HorizontalPodAutoscalerStatus next = new HorizontalPodAutoscalerStatus();
        next.setCurrentReplicas(currentReplicas);
        next.setDesiredReplicas(desiredReplicas);
        next.setLastScaleTime(rescale ? SpecChecks.formatTime(now) : original.getLastScaleTime());
        next.setCurrentMetrics(metricStatuses == null ? null : new ArrayList<>(metricStatuses));
        next.setConditions(finalConditions());
        next.setObservedGeneration(hpa.getMetadata().getGeneration());
        return next;
    }

    /** The HPA's status as it was, with the conditions this sync set. */
    HorizontalPodAutoscalerStatus withConditions() {
        HorizontalPodAutoscalerStatus next = SpecChecks.copyOf(original);
        next.setConditions(finalConditions());
        return next;
    }

    /** The conditions the sync ends with: those it set, upstream's as they were, none of its own that no longer apply. */
    private List<HorizontalPodAutoscalerCondition> finalConditions() {
        conditions.removeUnsetWithReasons(OWN_REASONS);
        return conditions.toList();
    }

    /** The trace of a sync that ended before its decision: the replicas as far as they were read, and the error. */
    DecisionTrace failure(int currentReplicas, int minReplicas, int maxReplicas, ErrorKind error, String errorReason, String errorMessage,
                          ControlsTrace controls) {
        return DecisionTrace.builder(key, now).replicas(currentReplicas, minReplicas, maxReplicas)
                .error(error, errorReason, errorMessage).controls(controls).build();
    }
}
