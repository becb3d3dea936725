package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;

import java.util.List;
import java.util.Objects;

/**
 * Whether two HPA statuses say the same thing, so that an unchanged status is not written (upstream
 * compares with {@code apiequality.Semantic.DeepEqual}). An absent list equals an empty one; quantities
 * compare by value.
 */
final class StatusEquality {

    private StatusEquality() {
    }

    static boolean same(HorizontalPodAutoscalerStatus a, HorizontalPodAutoscalerStatus b) {
        return Objects.equals(a.getCurrentReplicas(), b.getCurrentReplicas())
                && Objects.equals(a.getDesiredReplicas(), b.getDesiredReplicas())
                && Objects.equals(a.getLastScaleTime(), b.getLastScaleTime())
                && Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())
                && sameConditions(a.getConditions(), b.getConditions())
                && sameMetrics(a.getCurrentMetrics(), b.getCurrentMetrics());
    }

    private static boolean sameConditions(List<HorizontalPodAutoscalerCondition> a, List<HorizontalPodAutoscalerCondition> b) {
        List<HorizontalPodAutoscalerCondition> x = a == null ? List.of() : a;
        List<HorizontalPodAutoscalerCondition> y = b == null ? List.of() : b;
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            HorizontalPodAutoscalerCondition c = x.get(i);
            HorizontalPodAutoscalerCondition d = y.get(i);
            if (!Objects.equals(c.getType(), d.getType()) || !Objects.equals(c.getStatus(), d.getStatus())
                    || !Objects.equals(c.getReason(), d.getReason()) || !Objects.equals(c.getMessage(), d.getMessage())
                    || !Objects.equals(c.getLastTransitionTime(), d.getLastTransitionTime())) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameMetrics(List<MetricStatus> a, List<MetricStatus> b) {
        List<MetricStatus> x = a == null ? List.of() : a;
        List<MetricStatus> y = b == null ? List.of() : b;
        return x.equals(y);
    }
}
