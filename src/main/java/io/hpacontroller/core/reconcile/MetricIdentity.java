package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricIdentifier;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.hpacontroller.core.labels.Selector;

/**
 * Which entry of {@code spec.metrics} a remembered value belongs to, across syncs and edits of the other
 * entries: the type and what the entry measures (resource and container, metric name and selector, described
 * object), not its position. E.g. {@code Resource/cpu}, {@code External/queue_depth{queue=jobs}},
 * {@code Object/Ingress/main/requests}.
 */
final class MetricIdentity {

    private MetricIdentity() {
    }

    static String of(MetricSpec spec) {
        if (spec == null) {
            return "<none>";
        }
        String type = spec.getType() == null ? "" : spec.getType();
        return switch (type) {
            case "Resource" -> type + "/" + (spec.getResource() == null ? "" : spec.getResource().getName());
            case "ContainerResource" -> type + "/" + (spec.getContainerResource() == null ? ""
                    : spec.getContainerResource().getName() + "/" + spec.getContainerResource().getContainer());
            case "Pods" -> type + "/" + metric(spec.getPods() == null ? null : spec.getPods().getMetric());
            case "Object" -> type + "/" + object(spec.getObject() == null ? null : spec.getObject().getDescribedObject()) + "/"
                    + metric(spec.getObject() == null ? null : spec.getObject().getMetric());
            case "External" -> type + "/" + metric(spec.getExternal() == null ? null : spec.getExternal().getMetric());
            default -> type;
        };
    }

    private static String metric(MetricIdentifier id) {
        if (id == null) {
            return "";
        }
        return id.getName() + (id.getSelector() == null ? "" : "{" + selector(id.getSelector()) + "}");
    }

    private static String selector(LabelSelector s) {
        try {
            return Selector.fromLabelSelector(s).toString();
        } catch (IllegalArgumentException e) {
            return String.valueOf(s);
        }
    }

    private static String object(CrossVersionObjectReference ref) {
        return ref == null ? "" : ref.getKind() + "/" + ref.getName();
    }
}
