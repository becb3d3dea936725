package io.hpacontroller.live;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.reconcile.DecisionTrace;

import java.util.Objects;

/**
 * The status of a mirror HPA: autoscaling/v2's, plus what {@code kubectl get hpa} computes when it prints
 * and a custom resource's printer columns can only read from a field: {@code reference} (kind/name) and
 * {@code targets} (the current and target values of the first metrics); and {@code lastDecision}, the decision of
 * the latest sync that wrote the status ({@link LastDecision}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class MirrorHpaStatus extends HorizontalPodAutoscalerStatus {

    @JsonProperty("reference")
    private String reference;
    @JsonProperty("targets")
    private String targets;
    @JsonProperty("lastDecision")
    private LastDecision lastDecision;

    public MirrorHpaStatus() {
    }

    /**
     * autoscaling/v2's status of this HPA with the columns computed from it and from the spec, and the decision of
     * the sync that writes it (none when null).
     */
    static MirrorHpaStatus of(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) {
        MirrorHpaStatus s = new MirrorHpaStatus();
        s.setCurrentReplicas(status.getCurrentReplicas());
        // required by the schema; autoscaling/v2 stores Go's zero when a status is written before any decision
        s.setDesiredReplicas(status.getDesiredReplicas() == null ? Integer.valueOf(0) : status.getDesiredReplicas());
        s.setLastScaleTime(status.getLastScaleTime());
        s.setCurrentMetrics(status.getCurrentMetrics());
        s.setConditions(status.getConditions());
        s.setObservedGeneration(status.getObservedGeneration());
        s.reference = PrinterColumns.reference(hpa.getSpec());
        s.targets = PrinterColumns.targets(hpa.getSpec(), status.getCurrentMetrics());
        s.lastDecision = decided == null ? null : LastDecision.of(decided);
        return s;
    }

    public String getReference() {
        return reference;
    }

    public void setReference(String reference) {
        this.reference = reference;
    }

    public String getTargets() {
        return targets;
    }

    public void setTargets(String targets) {
        this.targets = targets;
    }

    public LastDecision getLastDecision() {
        return lastDecision;
    }

    public void setLastDecision(LastDecision lastDecision) {
        this.lastDecision = lastDecision;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MirrorHpaStatus m && super.equals(o) && Objects.equals(reference, m.reference) && Objects.equals(targets, m.targets)
                && Objects.equals(lastDecision, m.lastDecision);
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), reference, targets, lastDecision);
    }
}
