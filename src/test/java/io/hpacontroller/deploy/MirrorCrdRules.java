package io.hpacontroller.deploy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What autoscaling/v2's validation ({@code ValidateHorizontalPodAutoscaler} in upstream's
 * {@code pkg/apis/autoscaling/validation/validation.go}) refuses beyond its OpenAPI schema, as {@link MirrorCrd} puts it on
 * the mirror API's types for kube-apiserver 1.26: CEL rules ({@code x-kubernetes-validations}) with upstream's messages
 * where CEL can check it within the CRD's cost budget, else an OpenAPI {@code pattern} (and {@code minimum} for the
 * integer form of a quantity), which costs nothing: the checks on names and on a quantity's sign read a string of
 * unbounded length, and CEL's string functions on every metric of an unbounded list exceed the budget by far
 * (kube-apiserver refused the CRD: "estimated rule cost exceeds budget by factor of more than 100x"). Left to the
 * controller (a condition and an event): label selectors, which neither can parse.
 *
 * <p>One check goes further than autoscaling/v2: a metric name with a control character (a newline) is refused;
 * upstream takes it (its client escapes it in the URL). docs/differences-from-upstream.md says so.
 */
final class MirrorCrdRules {

    /** A CEL rule and its message (upstream's validation message, with the field it is about). */
    record Rule(String rule, String message) {
    }

    /** The CEL rules, by the name of the type in autoscaling/v2's OpenAPI document. */
    static final Map<String, List<Rule>> RULES = new LinkedHashMap<>();

    /**
     * A name that can be one segment of a URL path: upstream's {@code IsValidPathSegmentName}
     * (k8s.io/apimachinery/pkg/api/validation/path), which autoscaling/v2 applies to the kind and name of a reference
     * ({@code ValidateCrossVersionObjectReference}): not {@code .} or {@code ..}, no {@code /} and no {@code %}. Empty
     * matches: the rule "Required value" says that one. RE2 has no look-ahead, hence the two alternatives: a name not
     * starting with "..", or ".." and at least one more character.
     */
    static final String PATH_SEGMENT_NAME = "^(\\.?[^/%.][^/%]*|\\.\\.[^/%]+)?$";

    /** {@link #PATH_SEGMENT_NAME} (upstream's {@code validateMetricIdentifier}) without control characters either. */
    static final String METRIC_NAME = "^(\\.?[^/%.\\x00-\\x1f\\x7f][^/%\\x00-\\x1f\\x7f]*|\\.\\.[^/%\\x00-\\x1f\\x7f]+)?$";

    private static final String QUANTITY_SUFFIX = "(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

    /**
     * A positive quantity (upstream's {@code validateMetricTarget}: {@code Sign() != 1} is "must be positive"): the
     * Kubernetes quantity pattern with no minus sign and a digit other than 0 before the suffix or exponent, which alone
     * decide nothing about the sign. CEL has no quantity library before Kubernetes 1.29.
     */
    static final String POSITIVE_QUANTITY = "^\\+?([0-9]*[1-9][0-9]*(\\.[0-9]*)?|[0-9]*\\.[0-9]*[1-9][0-9]*)" + QUANTITY_SUFFIX;

    /** A quantity that is not negative (a tolerance): the quantity pattern with no minus sign, or minus zero. */
    static final String NON_NEGATIVE_QUANTITY = "^(\\+?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))|-(0+(\\.0*)?|\\.0+))" + QUANTITY_SUFFIX;

    /**
     * What each property gets besides its schema, by type and property: a {@code pattern} for its text and, for a
     * quantity, a {@code minimum} for its integer form ({@code averageValue: 0}).
     */
    static final Map<String, Map<String, Map<String, Object>>> PROPERTY_CHECKS = new LinkedHashMap<>();

    private MirrorCrdRules() {
    }

    static {
        String v2 = AutoscalingV2Schema.PREFIX;
        RULES.put(v2 + "HorizontalPodAutoscalerSpec", List.of(
                new Rule("self.maxReplicas >= 1", "maxReplicas: must be greater than 0"),
                new Rule("!has(self.minReplicas) || self.minReplicas >= 0", "minReplicas: must be greater than or equal to 0"),
                new Rule("!has(self.minReplicas) || self.maxReplicas >= self.minReplicas", "maxReplicas: must be greater than or equal to `minReplicas`"),
                new Rule("!has(self.minReplicas) || self.minReplicas != 0 || (has(self.metrics) && self.metrics.exists(m, m.type == 'Object' || m.type == 'External'))",
                        "metrics: must specify at least one Object or External metric to support scaling to zero replicas")));
        RULES.put(v2 + "CrossVersionObjectReference", List.of(
                new Rule("self.kind != ''", "kind: Required value"),
                new Rule("self.name != ''", "name: Required value")));
        RULES.put(v2 + "MetricSpec", List.of(
                new Rule("self.type in ['ContainerResource', 'External', 'Object', 'Pods', 'Resource']",
                        "type: Unsupported value: supported values: \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\""),
                new Rule("(self.type != 'ContainerResource' || has(self.containerResource)) && (self.type != 'External' || has(self.external))"
                        + " && (self.type != 'Object' || has(self.object)) && (self.type != 'Pods' || has(self.pods))"
                        + " && (self.type != 'Resource' || has(self.resource))", "must populate information for the given metric source"),
                new Rule("(self.type == 'ContainerResource' || !has(self.containerResource)) && (self.type == 'External' || !has(self.external))"
                        + " && (self.type == 'Object' || !has(self.object)) && (self.type == 'Pods' || !has(self.pods))"
                        + " && (self.type == 'Resource' || !has(self.resource))", "must populate the given metric source only")));
        RULES.put(v2 + "MetricTarget", List.of(
                new Rule("self.type in ['Utilization', 'Value', 'AverageValue']", "type: must be either Utilization, Value, or AverageValue"),
                new Rule("!has(self.averageUtilization) || self.averageUtilization > 0", "averageUtilization: must be greater than 0")));
        RULES.put(v2 + "MetricIdentifier", List.of(new Rule("self.name != ''", "name: must specify a metric name")));
        RULES.put(v2 + "ResourceMetricSource", List.of(
                new Rule("self.name != ''", "name: must specify a resource name"),
                new Rule("has(self.target.averageUtilization) || has(self.target.averageValue)",
                        "target.averageUtilization: must set either a target raw value or a target utilization"),
                new Rule("!has(self.target.averageUtilization) || !has(self.target.averageValue)",
                        "target.averageValue: may not set both a target raw value and a target utilization")));
        RULES.put(v2 + "ContainerResourceMetricSource", List.of(
                new Rule("self.name != ''", "name: must specify a resource name"),
                new Rule("self.container != ''", "container: must specify a container"),
                new Rule("has(self.target.averageUtilization) || has(self.target.averageValue)",
                        "target.averageUtilization: must set either a target raw value or a target utilization"),
                new Rule("!has(self.target.averageUtilization) || !has(self.target.averageValue)",
                        "target.averageValue: may not set both a target raw value and a target utilization")));
        RULES.put(v2 + "PodsMetricSource", List.of(
                new Rule("has(self.target.averageValue)", "target.averageValue: must specify a positive target averageValue")));
        RULES.put(v2 + "ObjectMetricSource", List.of(
                new Rule("has(self.target.value) || has(self.target.averageValue)", "target.averageValue: must set either a target value or averageValue")));
        RULES.put(v2 + "ExternalMetricSource", List.of(
                new Rule("has(self.target.value) || has(self.target.averageValue)",
                        "target.averageValue: must set either a target value for metric or a per-pod target"),
                new Rule("!has(self.target.value) || !has(self.target.averageValue)",
                        "target.value: may not set both a target value for metric and a per-pod target")));
        RULES.put(v2 + "HPAScalingRules", List.of(
                new Rule("!has(self.stabilizationWindowSeconds) || (self.stabilizationWindowSeconds >= 0 && self.stabilizationWindowSeconds <= 3600)",
                        "stabilizationWindowSeconds: must be greater than or equal to zero and less than or equal to 3600"),
                new Rule("!has(self.selectPolicy) || self.selectPolicy in ['Disabled', 'Max', 'Min']",
                        "selectPolicy: Unsupported value: supported values: \"Disabled\", \"Max\", \"Min\""),
                new Rule("!has(self.policies) || size(self.policies) > 0", "policies: must specify at least one Policy")));
        RULES.put(v2 + "HPAScalingPolicy", List.of(
                new Rule("self.type in ['Percent', 'Pods']", "type: Unsupported value: supported values: \"Percent\", \"Pods\""),
                new Rule("self.value > 0", "value: must be greater than zero"),
                new Rule("self.periodSeconds > 0 && self.periodSeconds <= 1800", "periodSeconds: must be greater than zero and less than or equal to 1800")));

        PROPERTY_CHECKS.put(v2 + "CrossVersionObjectReference", Map.of("kind", Map.of("pattern", PATH_SEGMENT_NAME),
                "name", Map.of("pattern", PATH_SEGMENT_NAME)));
        PROPERTY_CHECKS.put(v2 + "MetricIdentifier", Map.of("name", Map.of("pattern", METRIC_NAME)));
        PROPERTY_CHECKS.put(v2 + "MetricTarget", Map.of("value", Map.of("pattern", POSITIVE_QUANTITY, "minimum", 1),
                "averageValue", Map.of("pattern", POSITIVE_QUANTITY, "minimum", 1)));
        PROPERTY_CHECKS.put(v2 + "HPAScalingRules", Map.of("tolerance", Map.of("pattern", NON_NEGATIVE_QUANTITY, "minimum", 0)));
    }
}
