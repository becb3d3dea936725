package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;

/** Reading the entries of status.currentMetrics. */
public final class MetricStatuses {

    private MetricStatuses() {
    }

    /** The current value of one entry, whatever its source type; null for an empty entry (a failed metric). */
    public static MetricValueStatus current(MetricStatus m) {
        if (m == null) {
            return null;
        }
        return switch (String.valueOf(m.getType())) {
            case "Resource" -> m.getResource() == null ? null : m.getResource().getCurrent();
            case "ContainerResource" -> m.getContainerResource() == null ? null : m.getContainerResource().getCurrent();
            case "Pods" -> m.getPods() == null ? null : m.getPods().getCurrent();
            case "Object" -> m.getObject() == null ? null : m.getObject().getCurrent();
            case "External" -> m.getExternal() == null ? null : m.getExternal().getCurrent();
            default -> null;
        };
    }
}
