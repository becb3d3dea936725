package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.ContainerResourceMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ExternalMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ObjectMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.PodsMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ResourceMetricStatus;
import io.hpacontroller.core.Quantities;

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
 *
 * <p>Every sync compares, so the metric entries are compared field by field here rather than with the model's
 * {@code equals}, whose quantity comparison goes through BigDecimal each time: quantities with the same text are
 * equal at once, others compare by value as the model does.
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
            if (!sameMetric(x.get(i), y.get(i))) {
                return false;
            }
        }
        return true;
    }

    static boolean sameMetric(MetricStatus a, MetricStatus b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(typeOf(a), typeOf(b)) && Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties())
                && sameResource(a.getResource(), b.getResource()) && sameContainerResource(a.getContainerResource(), b.getContainerResource())
                && samePods(a.getPods(), b.getPods()) && sameObject(a.getObject(), b.getObject())
                && sameExternal(a.getExternal(), b.getExternal());
    }

    private static String typeOf(MetricStatus m) {
        return m.getType() == null ? "" : m.getType();
    }

    private static boolean sameResource(ResourceMetricStatus a, ResourceMetricStatus b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getName(), b.getName()) && sameValue(a.getCurrent(), b.getCurrent())
                && Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties());
    }

    private static boolean sameContainerResource(ContainerResourceMetricStatus a, ContainerResourceMetricStatus b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getName(), b.getName()) && Objects.equals(a.getContainer(), b.getContainer())
                && sameValue(a.getCurrent(), b.getCurrent()) && Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties());
    }

    private static boolean samePods(PodsMetricStatus a, PodsMetricStatus b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getMetric(), b.getMetric()) && sameValue(a.getCurrent(), b.getCurrent())
                && Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties());
    }

    private static boolean sameObject(ObjectMetricStatus a, ObjectMetricStatus b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getMetric(), b.getMetric()) && Objects.equals(a.getDescribedObject(), b.getDescribedObject())
                && sameValue(a.getCurrent(), b.getCurrent()) && Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties());
    }

    private static boolean sameExternal(ExternalMetricStatus a, ExternalMetricStatus b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getMetric(), b.getMetric()) && sameValue(a.getCurrent(), b.getCurrent())
                && Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties());
    }

    private static boolean sameValue(MetricValueStatus a, MetricValueStatus b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getAverageUtilization(), b.getAverageUtilization()) && Quantities.sameValue(a.getAverageValue(), b.getAverageValue())
                && Quantities.sameValue(a.getValue(), b.getValue()) && Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties());
    }
}
