package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricTarget;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The REFERENCE and TARGETS columns of {@code kubectl get hpa}, as kube-apiserver's table printer writes
 * them for autoscaling/v2 (upstream {@code printHorizontalPodAutoscaler} and {@code formatHPAMetrics}):
 * a mirror HPA's printer columns can only show fields, so the controller writes these into its status.
 */
final class PrinterColumns {

    private static final int SHOWN = 2;
    private static final String UNKNOWN = "<unknown>";

    private PrinterColumns() {
    }

    /** "Deployment/web". */
    static String reference(HorizontalPodAutoscalerSpec spec) {
        CrossVersionObjectReference ref = spec == null ? null : spec.getScaleTargetRef();
        return ref == null ? "/" : nullToEmpty(ref.getKind()) + "/" + nullToEmpty(ref.getName());
    }

    /**
     * "cpu: 80%/50%, 12/10 (avg) + 1 more...": per metric of the spec the current value from the status entry
     * at the same position, {@code <unknown>} when there is none, and the target; the first two metrics, then
     * how many more; {@code <none>} without metrics (the CRD defaults them as autoscaling/v2 does).
     */
    static String targets(HorizontalPodAutoscalerSpec spec, List<MetricStatus> statuses) {
        List<MetricSpec> metrics = spec == null || spec.getMetrics() == null ? List.of() : spec.getMetrics();
        if (metrics.isEmpty()) {
            return "<none>";
        }
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < metrics.size() && i < SHOWN; i++) {
            MetricStatus status = statuses != null && statuses.size() > i ? statuses.get(i) : null;
            shown.add(format(metrics.get(i), status));
        }
        String text = String.join(", ", shown);
        return metrics.size() > SHOWN ? text + " + " + (metrics.size() - SHOWN) + " more..." : text;
    }

    private static String format(MetricSpec m, MetricStatus s) {
        String type = m == null || m.getType() == null ? "" : m.getType();
        return switch (type) {
            case "External" -> m.getExternal() == null ? UNKNOWN_TYPE : valueOrAverage(m.getExternal().getTarget(),
                    s == null ? null : s.getExternal() == null ? null : s.getExternal().getCurrent());
            case "Object" -> m.getObject() == null ? UNKNOWN_TYPE : valueOrAverage(m.getObject().getTarget(),
                    s == null ? null : s.getObject() == null ? null : s.getObject().getCurrent());
            case "Pods" -> m.getPods() == null ? UNKNOWN_TYPE : current(s == null || s.getPods() == null ? null : s.getPods().getCurrent(),
                    MetricValueStatus::getAverageValue) + "/" + text(target(m.getPods().getTarget()).getAverageValue());
            case "Resource" -> m.getResource() == null ? UNKNOWN_TYPE : m.getResource().getName() + ": "
                    + usage(m.getResource().getTarget(), s == null || s.getResource() == null ? null : s.getResource().getCurrent());
            case "ContainerResource" -> m.getContainerResource() == null ? UNKNOWN_TYPE : m.getContainerResource().getName() + ": "
                    + usage(m.getContainerResource().getTarget(), s == null || s.getContainerResource() == null ? null : s.getContainerResource().getCurrent());
            default -> UNKNOWN_TYPE;
        };
    }

    private static final String UNKNOWN_TYPE = "<unknown type>";

    /** Object and External metrics: "current/target (avg)" for an average target, else "current/target". */
    private static String valueOrAverage(MetricTarget target, MetricValueStatus current) {
        MetricTarget t = target(target);
        if (t.getAverageValue() != null) {
            return current(current, MetricValueStatus::getAverageValue) + "/" + text(t.getAverageValue()) + " (avg)";
        }
        return current(current, MetricValueStatus::getValue) + "/" + text(t.getValue());
    }

    /** Resource metrics: an average value target, or a utilization ("<auto>" when neither is set). */
    private static String usage(MetricTarget target, MetricValueStatus current) {
        MetricTarget t = target(target);
        if (t.getAverageValue() != null) {
            return current(current, MetricValueStatus::getAverageValue) + "/" + text(t.getAverageValue());
        }
        String now = current == null || current.getAverageUtilization() == null ? UNKNOWN : current.getAverageUtilization() + "%";
        String goal = t.getAverageUtilization() == null ? "<auto>" : t.getAverageUtilization() + "%";
        return now + "/" + goal;
    }

    private static String current(MetricValueStatus current, Function<MetricValueStatus, Quantity> value) {
        return current == null ? UNKNOWN : text(value.apply(current));
    }

    /** Go prints a nil quantity as "0". */
    private static String text(Quantity q) {
        return q == null ? "0" : q.toString();
    }

    private static MetricTarget target(MetricTarget t) {
        return t == null ? new MetricTarget() : t;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
