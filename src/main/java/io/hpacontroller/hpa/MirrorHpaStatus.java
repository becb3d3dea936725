package io.hpacontroller.hpa;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ObjectMetricStatus;
import io.hpacontroller.core.trace.DecisionTrace;

import java.util.ArrayList;
import java.util.List;
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
        s.setCurrentMetrics(valid(hpa.getSpec(), status.getCurrentMetrics()));
        s.setConditions(status.getConditions());
        s.setObservedGeneration(status.getObservedGeneration());
        s.reference = PrinterColumns.reference(hpa.getSpec());
        s.targets = PrinterColumns.targets(hpa.getSpec(), status.getCurrentMetrics());
        s.lastDecision = decided == null ? null : LastDecision.of(decided);
        return s;
    }

    /**
     * The entries of currentMetrics in a form the mirror's schema (autoscaling/v2's published one, which the built-in
     * API documents but does not enforce on a status) takes, reading as upstream's. The core's entries are upstream's
     * except in two places, which autoscaling/v2 stores and the mirror would refuse (every status write with them,
     * issue 27):
     * <ul>
     * <li>A failed metric's entry is upstream's zero {@code MetricStatus}: {@code computeReplicasForMetrics} makes one
     *     entry per metric of the spec and fills it only when the metric succeeds; autoscaling/v2 stores the zero value as
     *     {@code {"type":""}}. The core leaves the type unset, sent as {@code {}}, which the mirror refuses (type required):
     *     it gets the stored form, {@code type: ""}, written out, the same object as its autoscaling/v2 twin's. The entry
     *     keeps its place, by which kubectl's TARGETS and describe (and the {@code targets} column) pair each metric of
     *     the spec with its current value ({@code <unknown>} for this one).</li>
     * <li>An Object metric with an AverageValue target: upstream's {@code computeStatusForObjectMetric} leaves the
     *     entry's {@code describedObject} out (autoscaling/v2 stores {@code {kind: "", name: ""}}), which the mirror
     *     refuses (both required): it gets the spec's, as the Value target's entry has it.</li>
     * </ul>
     */
    private static List<MetricStatus> valid(HorizontalPodAutoscalerSpec spec, List<MetricStatus> entries) {
        if (entries == null) {
            return null;
        }
        List<MetricSpec> metrics = spec == null || spec.getMetrics() == null ? List.of() : spec.getMetrics();
        List<MetricStatus> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            MetricStatus m = entries.get(i);
            MetricSpec metric = i < metrics.size() ? metrics.get(i) : null;
            if (m == null || m.getType() == null) {
                out.add(new MetricStatus(null, null, null, null, null, ""));
            } else if (m.getObject() != null && !namesOne(m.getObject().getDescribedObject()) && metric != null && metric.getObject() != null
                    && namesOne(metric.getObject().getDescribedObject())) {
                ObjectMetricStatus o = m.getObject();
                out.add(new MetricStatus(null, null, new ObjectMetricStatus(o.getCurrent(), metric.getObject().getDescribedObject(), o.getMetric()),
                        null, null, m.getType()));
            } else {
                out.add(m);
            }
        }
        return out;
    }

    /** Whether the reference names an object (a kind and a name). */
    private static boolean namesOne(CrossVersionObjectReference object) {
        return object != null && object.getKind() != null && !object.getKind().isEmpty() && object.getName() != null && !object.getName().isEmpty();
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
