package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatusBuilder;

import java.util.List;
import java.util.Objects;

/**
 * Whether two HPA statuses say the same thing, so that an unchanged status is not written (upstream
 * compares with {@code apiequality.Semantic.DeepEqual}). Quantities compare by value.
 *
 * <p>The status read back from the API server is compared with the one we would write, so what the API
 * server's serialization turns one into the other counts as equal: an absent list equals an empty one, an
 * absent {@code currentReplicas} equals 0 (the field is {@code omitempty}), and a metric entry without a
 * type equals one with type {@code ""} (a failed metric's entry is upstream's zero {@code MetricStatus},
 * which the API server stores and returns as {@code {"type":""}}).
 */
final class StatusEquality {

    private StatusEquality() {
    }

    static boolean same(HorizontalPodAutoscalerStatus a, HorizontalPodAutoscalerStatus b) {
        return zeroIfAbsent(a.getCurrentReplicas()) == zeroIfAbsent(b.getCurrentReplicas())
                && zeroIfAbsent(a.getDesiredReplicas()) == zeroIfAbsent(b.getDesiredReplicas())
                && Objects.equals(a.getLastScaleTime(), b.getLastScaleTime())
                && Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())
                && sameConditions(a.getConditions(), b.getConditions())
                && sameMetrics(a.getCurrentMetrics(), b.getCurrentMetrics());
    }

    private static int zeroIfAbsent(Integer i) {
        return i == null ? 0 : i;
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
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            if (!Objects.equals(typed(x.get(i)), typed(y.get(i)))) {
                return false;
            }
        }
        return true;
    }

    private static MetricStatus typed(MetricStatus m) {
        return m == null || m.getType() != null ? m : new MetricStatusBuilder(m).withType("").build();
    }
}
