package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;
import io.hpacontroller.core.Quantities;

import java.util.List;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * Whether two HPA statuses say the same thing, so that an unchanged status is not written (upstream
 * compares with {@code apiequality.Semantic.DeepEqual}). Quantities compare by value.
 *
 * <p>The status read back from the API server is compared with the one we would write, so what the API
 * server's serialization turns one into the other counts as equal: an absent list equals an empty one, an
 * absent {@code currentReplicas} equals 0 (the field is {@code omitempty}), and a metric entry without a
 * type equals one with type {@code ""} (a failed metric's entry is upstream's zero {@code MetricStatus},
 * which the API server stores and returns as {@code {"type":""}}), and an Object entry's absent described object
 * equals its zero value ({@link #sameDescribedObject}).
 *
 * <p>Every sync compares, so the metric entries are compared field by field here rather than with the model's
 * {@code equals}, whose quantity comparison goes through BigDecimal each time: quantities with the same text are
 * equal at once, others compare by value as the model does.
 */
public final class StatusEquality {

    private StatusEquality() {
    }

    public static boolean same(HorizontalPodAutoscalerStatus a, HorizontalPodAutoscalerStatus b) {
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
            if (!sameMetric(x.get(i), y.get(i))) {
                return false;
            }
        }
        return true;
    }

    static boolean sameMetric(MetricStatus a, MetricStatus b) {
        return both(a, b, (x, y) -> typeOf(x).equals(typeOf(y)) && Objects.equals(x.getAdditionalProperties(), y.getAdditionalProperties())
                && both(x.getResource(), y.getResource(), (m, n) -> Objects.equals(m.getName(), n.getName())
                        && sameValue(m.getCurrent(), n.getCurrent()) && Objects.equals(m.getAdditionalProperties(), n.getAdditionalProperties()))
                && both(x.getContainerResource(), y.getContainerResource(), (m, n) -> Objects.equals(m.getName(), n.getName())
                        && Objects.equals(m.getContainer(), n.getContainer()) && sameValue(m.getCurrent(), n.getCurrent())
                        && Objects.equals(m.getAdditionalProperties(), n.getAdditionalProperties()))
                && both(x.getPods(), y.getPods(), (m, n) -> Objects.equals(m.getMetric(), n.getMetric())
                        && sameValue(m.getCurrent(), n.getCurrent()) && Objects.equals(m.getAdditionalProperties(), n.getAdditionalProperties()))
                && both(x.getObject(), y.getObject(), (m, n) -> Objects.equals(m.getMetric(), n.getMetric())
                        && sameDescribedObject(m.getDescribedObject(), n.getDescribedObject()) && sameValue(m.getCurrent(), n.getCurrent())
                        && Objects.equals(m.getAdditionalProperties(), n.getAdditionalProperties()))
                && both(x.getExternal(), y.getExternal(), (m, n) -> Objects.equals(m.getMetric(), n.getMetric())
                        && sameValue(m.getCurrent(), n.getCurrent()) && Objects.equals(m.getAdditionalProperties(), n.getAdditionalProperties())));
    }

    /**
     * Object entries' described objects: one that names none (left out, or Go's zero value {@code {kind: "", name: ""}}
     * as autoscaling/v2 stores it) equals only another that names none, as upstream's {@code apiequality.Semantic.DeepEqual}
     * on the struct; so a status written before v1.33 (kubernetes/kubernetes PR #124555), without the object, is
     * rewritten once to name it.
     */
    private static boolean sameDescribedObject(CrossVersionObjectReference a, CrossVersionObjectReference b) {
        return namesNone(a) || namesNone(b) ? namesNone(a) && namesNone(b) : Objects.equals(a, b);
    }

    private static boolean namesNone(CrossVersionObjectReference o) {
        return o == null || (o.getKind() == null || o.getKind().isEmpty()) && (o.getName() == null || o.getName().isEmpty());
    }

    /** Both absent, or both present and the same by {@code same}. */
    private static <T> boolean both(T a, T b, BiPredicate<T, T> same) {
        return a == null || b == null ? a == b : same.test(a, b);
    }

    private static String typeOf(MetricStatus m) {
        return m.getType() == null ? "" : m.getType();
    }

    private static boolean sameValue(MetricValueStatus a, MetricValueStatus b) {
        return both(a, b, (x, y) -> Objects.equals(x.getAverageUtilization(), y.getAverageUtilization())
                && Quantities.sameValue(x.getAverageValue(), y.getAverageValue()) && Quantities.sameValue(x.getValue(), y.getValue())
                && Objects.equals(x.getAdditionalProperties(), y.getAdditionalProperties()));
    }
}
