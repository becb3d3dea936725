package io.hpacontroller.core.validation;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ContainerResourceMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ExternalMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricIdentifier;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricTarget;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ObjectMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.PodsMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ResourceMetricSource;
import io.hpacontroller.core.normalize.Behavior;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The API server's validation of an {@code autoscaling/v2} HorizontalPodAutoscaler on create
 * ({@code ValidateHorizontalPodAutoscaler} in upstream's {@code pkg/apis/autoscaling/validation}, v1.37): the
 * same checks in the same order, with the same field paths and messages. As there, it validates the object
 * after the API's defaults: an unset {@code minReplicas} counts as 1, an empty {@code metrics} list as the
 * default CPU metric, unset {@code behavior} policies as the default ones.
 *
 * <p>Where it differs: {@code metadata} is checked for its name and namespace only (not labels and
 * annotations); a quantity is printed as its text; {@code behavior.*.tolerance} (v1.33+, whose check we could
 * not read) must not be negative; a container resource name without a prefix must be a standard one (cpu,
 * memory, ephemeral-storage, hugepages-*), the other checks of upstream's {@code ValidateContainerResourceName}
 * are left out; an empty {@code behavior.*.policies} list counts as unset (fabric8 does not tell the two apart).
 */
public final class HpaValidation {

    private static final List<String> METRIC_SOURCE_TYPES = List.of("ContainerResource", "External", "Object", "Pods", "Resource");
    private static final List<String> SELECT_POLICIES = List.of("Disabled", "Max", "Min");
    private static final List<String> POLICY_TYPES = List.of("Percent", "Pods");
    private static final Set<String> METRIC_TARGET_TYPES = Set.of("Utilization", "Value", "AverageValue");
    private static final Set<String> STANDARD_CONTAINER_RESOURCES = Set.of("cpu", "memory", "ephemeral-storage");

    /**
     * What the API server is configured with.
     *
     * @param scaleToZero the {@code HPAScaleToZero} feature gate: {@code minReplicas} may be 0
     */
    public record Options(boolean scaleToZero) {
    }

    private final List<FieldError> errors = new ArrayList<>();

    private HpaValidation() {
    }

    /** Every problem the API server would report for this HPA, in its order; empty when it would accept it. */
    public static List<FieldError> validate(HorizontalPodAutoscaler hpa, Options options) {
        HpaValidation v = new HpaValidation();
        v.objectMeta(hpa.getMetadata(), FieldPath.of("metadata"));
        v.spec(hpa.getSpec() == null ? new HorizontalPodAutoscalerSpec() : hpa.getSpec(), FieldPath.of("spec"), options.scaleToZero() ? 0 : 1);
        return List.copyOf(v.errors);
    }

    /**
     * What upstream's {@code ValidateCrossVersionObjectReference} refuses about a reference (a scaleTargetRef, an Object
     * metric's describedObject): a kind or a name that is empty or no valid path segment ({@code ../../other/deployments/web}).
     */
    public static List<FieldError> validateReference(CrossVersionObjectReference ref, FieldPath path) {
        HpaValidation v = new HpaValidation();
        v.crossVersionObjectReference(ref, path);
        return List.copyOf(v.errors);
    }

    /** What upstream's {@code validateMetricIdentifier} refuses about a metric's name: empty, or no valid path segment. */
    public static List<FieldError> validateMetricName(MetricIdentifier id, FieldPath path) {
        HpaValidation v = new HpaValidation();
        v.metricIdentifier(id, path);
        return List.copyOf(v.errors);
    }

    private void objectMeta(ObjectMeta meta, FieldPath path) {
        ObjectMeta m = meta == null ? new ObjectMeta() : meta;
        if (isEmpty(m.getName())) {
            if (isEmpty(m.getGenerateName())) {
                errors.add(FieldError.required(path.child("name"), "name or generateName is required"));
            }
        } else {
            for (String msg : NameSyntax.dns1123Subdomain(m.getName())) {
                errors.add(FieldError.invalid(path.child("name"), m.getName(), msg));
            }
        }
        if (isEmpty(m.getNamespace())) {
            errors.add(FieldError.required(path.child("namespace"), ""));
        } else {
            for (String msg : NameSyntax.dns1123Label(m.getNamespace())) {
                errors.add(FieldError.invalid(path.child("namespace"), m.getNamespace(), msg));
            }
        }
    }

    private void spec(HorizontalPodAutoscalerSpec spec, FieldPath path, int minReplicasLowerBound) {
        int min = spec.getMinReplicas() == null ? 1 : spec.getMinReplicas(); // the API's default
        int max = spec.getMaxReplicas() == null ? 0 : spec.getMaxReplicas();
        if (min < minReplicasLowerBound) {
            errors.add(FieldError.invalid(path.child("minReplicas"), min, "must be greater than or equal to " + minReplicasLowerBound));
        }
        if (max < 1) {
            errors.add(FieldError.invalid(path.child("maxReplicas"), max, "must be greater than 0"));
        }
        if (max < min) {
            errors.add(FieldError.invalid(path.child("maxReplicas"), max, "must be greater than or equal to `minReplicas`"));
        }
        crossVersionObjectReference(spec.getScaleTargetRef(), path.child("scaleTargetRef"));
        metrics(spec.getMetrics(), path.child("metrics"), min);
        behavior(spec.getBehavior(), path.child("behavior"));
    }

    private void crossVersionObjectReference(CrossVersionObjectReference ref, FieldPath path) {
        CrossVersionObjectReference r = ref == null ? new CrossVersionObjectReference() : ref;
        pathSegmentName(r.getKind(), path.child("kind"), "");
        pathSegmentName(r.getName(), path.child("name"), "");
    }

    /** Required when empty (with {@code requiredDetail}), else a valid path segment. */
    private void pathSegmentName(String value, FieldPath path, String requiredDetail) {
        if (isEmpty(value)) {
            errors.add(FieldError.required(path, requiredDetail));
            return;
        }
        for (String msg : NameSyntax.pathSegmentName(value)) {
            errors.add(FieldError.invalid(path, value, msg));
        }
    }

    private void metrics(List<MetricSpec> metrics, FieldPath path, int minReplicas) {
        boolean objectOrExternal = false;
        // an empty list is defaulted to a CPU Resource metric, which is valid
        for (int i = 0; metrics != null && i < metrics.size(); i++) {
            MetricSpec m = metrics.get(i) == null ? new MetricSpec() : metrics.get(i);
            metricSpec(m, path.index(i));
            objectOrExternal |= "Object".equals(m.getType()) || "External".equals(m.getType());
        }
        if (minReplicas == 0 && !objectOrExternal) {
            errors.add(FieldError.forbidden(path, "must specify at least one Object or External metric to support scaling to zero replicas"));
        }
    }

    private void metricSpec(MetricSpec spec, FieldPath path) {
        String type = spec.getType() == null ? "" : spec.getType();
        if (type.isEmpty()) {
            errors.add(FieldError.required(path.child("type"), "must specify a metric source type"));
        }
        if (!METRIC_SOURCE_TYPES.contains(type)) {
            errors.add(FieldError.notSupported(path.child("type"), type, METRIC_SOURCE_TYPES));
        }
        Set<String> present = presentSources(spec, path);
        String expected = sourceFieldOf(type);
        if (expected == null) {
            // upstream reports an unknown type twice (its switch's default case repeats the check above);
            // kubectl shows it once
            errors.add(FieldError.notSupported(path.child("type"), type, METRIC_SOURCE_TYPES));
        } else if (!present.contains(expected)) {
            errors.add(FieldError.required(path.child(expected), "must populate information for the given metric source"));
        }
        if (present.size() != 1) {
            for (String other : present) {
                if (!other.equals(expected)) {
                    errors.add(FieldError.forbidden(path.child(other), "must populate the given metric source only"));
                }
            }
        }
    }

    /** The source fields the metric sets, in upstream's order; only the first is validated (the others are refused). */
    private Set<String> presentSources(MetricSpec spec, FieldPath path) {
        Set<String> present = new TreeSet<>();
        if (spec.getObject() != null && present.add("object") && present.size() == 1) {
            objectSource(spec.getObject(), path.child("object"));
        }
        if (spec.getExternal() != null && present.add("external") && present.size() == 1) {
            externalSource(spec.getExternal(), path.child("external"));
        }
        if (spec.getPods() != null && present.add("pods") && present.size() == 1) {
            podsSource(spec.getPods(), path.child("pods"));
        }
        if (spec.getResource() != null && present.add("resource") && present.size() == 1) {
            resourceSource(spec.getResource(), path.child("resource"));
        }
        if (spec.getContainerResource() != null && present.add("containerResource") && present.size() == 1) {
            containerResourceSource(spec.getContainerResource(), path.child("containerResource"));
        }
        return present;
    }

    /** The field a metric of {@code type} must set; null for an unknown type. */
    private static String sourceFieldOf(String type) {
        return switch (type) {
            case "Object" -> "object";
            case "Pods" -> "pods";
            case "Resource" -> "resource";
            case "External" -> "external";
            case "ContainerResource" -> "containerResource";
            default -> null;
        };
    }

    private void objectSource(ObjectMetricSource src, FieldPath path) {
        crossVersionObjectReference(src.getDescribedObject(), path.child("describedObject"));
        metricIdentifier(src.getMetric(), path.child("metric"));
        MetricTarget target = target(src.getTarget(), path.child("target"));
        if (target.getValue() == null && target.getAverageValue() == null) {
            errors.add(FieldError.required(path.child("target").child("averageValue"), "must set either a target value or averageValue"));
        }
    }

    private void externalSource(ExternalMetricSource src, FieldPath path) {
        metricIdentifier(src.getMetric(), path.child("metric"));
        MetricTarget target = target(src.getTarget(), path.child("target"));
        if (target.getValue() == null && target.getAverageValue() == null) {
            errors.add(FieldError.required(path.child("target").child("averageValue"), "must set either a target value for metric or a per-pod target"));
        }
        if (target.getValue() != null && target.getAverageValue() != null) {
            errors.add(FieldError.forbidden(path.child("target").child("value"), "may not set both a target value for metric and a per-pod target"));
        }
    }

    private void podsSource(PodsMetricSource src, FieldPath path) {
        metricIdentifier(src.getMetric(), path.child("metric"));
        MetricTarget target = target(src.getTarget(), path.child("target"));
        if (target.getAverageValue() == null) {
            errors.add(FieldError.required(path.child("target").child("averageValue"), "must specify a positive target averageValue"));
        }
    }

    private void containerResourceSource(ContainerResourceMetricSource src, FieldPath path) {
        if (isEmpty(src.getName())) {
            errors.add(FieldError.required(path.child("name"), "must specify a resource name"));
        } else if (!src.getName().contains("/") && !STANDARD_CONTAINER_RESOURCES.contains(src.getName()) && !src.getName().startsWith("hugepages-")) {
            errors.add(FieldError.invalid(path.child("name"), src.getName(), "must be a standard resource for containers"));
        }
        if (isEmpty(src.getContainer())) {
            errors.add(FieldError.required(path.child("container"), "must specify a container"));
        } else {
            for (String msg : NameSyntax.dns1123Label(src.getContainer())) {
                errors.add(FieldError.invalid(path.child("container"), src.getContainer(), msg));
            }
        }
        utilizationOrValue(target(src.getTarget(), path.child("target")), path.child("target"));
    }

    private void resourceSource(ResourceMetricSource src, FieldPath path) {
        if (isEmpty(src.getName())) {
            errors.add(FieldError.required(path.child("name"), "must specify a resource name"));
        }
        utilizationOrValue(target(src.getTarget(), path.child("target")), path.child("target"));
    }

    private void utilizationOrValue(MetricTarget target, FieldPath path) {
        if (target.getAverageUtilization() == null && target.getAverageValue() == null) {
            errors.add(FieldError.required(path.child("averageUtilization"), "must set either a target raw value or a target utilization"));
        }
        if (target.getAverageUtilization() != null && target.getAverageValue() != null) {
            errors.add(FieldError.forbidden(path.child("averageValue"), "may not set both a target raw value and a target utilization"));
        }
    }

    /** Validates a metric target and returns it (an empty one when unset, as Go's zero value). */
    private MetricTarget target(MetricTarget given, FieldPath path) {
        MetricTarget t = given == null ? new MetricTarget() : given;
        String type = t.getType() == null ? "" : t.getType();
        if (type.isEmpty()) {
            errors.add(FieldError.required(path.child("type"), "must specify a metric target type"));
        }
        if (!METRIC_TARGET_TYPES.contains(type)) {
            errors.add(FieldError.invalid(path.child("type"), type, "must be either Utilization, Value, or AverageValue"));
        }
        if (t.getValue() != null && sign(t.getValue()) != 1) {
            errors.add(FieldError.invalid(path.child("value"), t.getValue(), "must be positive"));
        }
        if (t.getAverageValue() != null && sign(t.getAverageValue()) != 1) {
            errors.add(FieldError.invalid(path.child("averageValue"), t.getAverageValue(), "must be positive"));
        }
        if (t.getAverageUtilization() != null && t.getAverageUtilization() < 1) {
            errors.add(FieldError.invalid(path.child("averageUtilization"), t.getAverageUtilization(), "must be greater than 0"));
        }
        return t;
    }

    private void metricIdentifier(MetricIdentifier id, FieldPath path) {
        pathSegmentName(id == null ? null : id.getName(), path.child("name"), "must specify a metric name");
    }

    private void behavior(HorizontalPodAutoscalerBehavior behavior, FieldPath path) {
        if (behavior != null) {
            scalingRules(behavior.getScaleUp(), path.child("scaleUp"));
            scalingRules(behavior.getScaleDown(), path.child("scaleDown"));
        }
    }

    private void scalingRules(HPAScalingRules rules, FieldPath path) {
        if (rules == null) {
            return;
        }
        Integer window = rules.getStabilizationWindowSeconds();
        if (window != null && window < 0) {
            errors.add(FieldError.invalid(path.child("stabilizationWindowSeconds"), window, "must be greater than or equal to zero"));
        }
        if (window != null && window > Behavior.MAX_STABILIZATION_WINDOW_SECONDS) {
            errors.add(FieldError.invalid(path.child("stabilizationWindowSeconds"), window,
                    "must be less than or equal to " + Behavior.MAX_STABILIZATION_WINDOW_SECONDS));
        }
        if (rules.getSelectPolicy() != null && !SELECT_POLICIES.contains(rules.getSelectPolicy())) {
            errors.add(FieldError.notSupported(path.child("selectPolicy"), rules.getSelectPolicy(), SELECT_POLICIES));
        }
        List<HPAScalingPolicy> policies = rules.getPolicies();
        for (int i = 0; policies != null && i < policies.size(); i++) {
            scalingPolicy(policies.get(i) == null ? new HPAScalingPolicy() : policies.get(i), path.child("policies").index(i));
        }
        if (rules.getTolerance() != null && sign(rules.getTolerance()) < 0) {
            errors.add(FieldError.invalid(path.child("tolerance"), rules.getTolerance(), "must be greater than or equal to 0"));
        }
    }

    private void scalingPolicy(HPAScalingPolicy policy, FieldPath path) {
        String type = policy.getType() == null ? "" : policy.getType();
        if (!POLICY_TYPES.contains(type)) {
            errors.add(FieldError.notSupported(path.child("type"), type, POLICY_TYPES));
        }
        int value = policy.getValue() == null ? 0 : policy.getValue();
        if (value <= 0) {
            errors.add(FieldError.invalid(path.child("value"), value, "must be greater than zero"));
        }
        int period = policy.getPeriodSeconds() == null ? 0 : policy.getPeriodSeconds();
        if (period <= 0) {
            errors.add(FieldError.invalid(path.child("periodSeconds"), period, "must be greater than zero"));
        }
        if (period > Behavior.MAX_POLICY_PERIOD_SECONDS) {
            errors.add(FieldError.invalid(path.child("periodSeconds"), period, "must be less than or equal to " + Behavior.MAX_POLICY_PERIOD_SECONDS));
        }
    }

    /** The sign of a quantity (-1, 0, 1); a quantity that does not parse counts as 0, which no check accepts. */
    private static int sign(Quantity q) {
        try {
            return q.getNumericalAmount().signum();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
