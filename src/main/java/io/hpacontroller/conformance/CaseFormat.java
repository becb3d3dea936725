package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.Quantities;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The case format of {@code SCHEMA.md} (and our extensions, {@code conformance-own/README.md}) as a tree of
 * the keys each object may have and the JSON type of every value. A case that does not fit is refused with
 * the path of the first problem, so a case cannot pass by checking nothing: an unknown or misspelled key
 * ({@code expected}, {@code replica}) is an error at every level, {@code "5"} is not an integer, every kind
 * has the expectations it must state, and the Kubernetes objects in a case ({@code metric}, {@code behavior},
 * {@code hpa}, {@code expect.status}) may only hold fields the autoscaling/v2 API has.
 */
final class CaseFormat {

    /** The keys a reconcile case's HPA status may carry beyond the API's: times relative to "now". */
    static final String LAST_SCALE_TIME_AGO = "lastScaleTimeSecondsAgo";
    static final String LAST_TRANSITION_TIME_AGO = "lastTransitionTimeSecondsAgo";

    /** One node of the format: checks a value, returns the first problem as "path: problem", or null. */
    private interface Shape {
        String check(String path, JsonNode node);
    }

    private record Field(Shape shape, boolean required) {
    }

    private final KubernetesSerialization serialization;
    private final Map<String, Shape> kinds = new LinkedHashMap<>();

    CaseFormat(KubernetesSerialization serialization) {
        this.serialization = serialization;
        Shape config = object(Map.of(
                "tolerance", optional(NUMBER),
                "cpuInitializationPeriodSeconds", optional(INT),
                "initialReadinessDelaySeconds", optional(INT),
                "downscaleStabilizationSeconds", optional(INT),
                "scaleToZeroEnabled", optional(BOOL)));
        Shape resources = mapOf(QUANTITY);
        Shape pod = object(Map.of(
                "name", required(STRING),
                "phase", optional(oneOf("Pending", "Running", "Succeeded", "Failed", "Unknown")),
                "ready", optional(oneOf("True", "False", "Unknown")),
                "readyTransitionSecondsAgo", optional(INT),
                "startedSecondsAgo", optional(INT),
                "deleting", optional(BOOL),
                "containers", optional(listOf(object(Map.of("name", required(STRING), "requests", optional(resources))))),
                "podRequests", optional(resources)));
        Map<String, Field> world = Map.of(
                "pods", optional(listOf(pod)),
                "resourceMetrics", optional(mapOf(object(Map.of(
                        "timestampSecondsAgo", optional(INT),
                        "windowSeconds", optional(INT),
                        "containers", optional(mapOf(resources)))))),
                "podsMetrics", optional(mapOf(mapOf(object(Map.of(
                        "value", required(QUANTITY),
                        "timestampSecondsAgo", optional(INT),
                        "windowSeconds", optional(INT)))))),
                "objectMetrics", optional(mapOf(object(Map.of(
                        "value", required(QUANTITY),
                        "timestampSecondsAgo", optional(INT))))),
                "externalMetrics", optional(mapOf(object(Map.of(
                        "values", required(listOf(QUANTITY)),
                        "timestampSecondsAgo", optional(INT))))),
                "metricErrors", optional(listOf(STRING)));
        Shape event = object(Map.of("replicaChange", required(INT), "secondsAgo", required(INT)));
        Shape history = nullable(object(Map.of(
                "recommendations", optional(listOf(object(Map.of("replicas", required(INT), "secondsAgo", required(INT))))),
                "scaleUpEvents", optional(listOf(event)),
                "scaleDownEvents", optional(listOf(event)),
                "metricFailures", optional(listOf(object(Map.of(
                        "metric", required(STRING),
                        "failingSinceSecondsAgo", required(INT),
                        "fallback", optional(BOOL))))))));
        Shape behavior = nullable(model(HorizontalPodAutoscalerBehavior.class));

        Map<String, Field> calc = common(config);
        calc.putAll(world);
        calc.putAll(Map.of(
                "specReplicas", required(INT),
                "statusReplicas", required(INT),
                "metric", required(model(MetricSpec.class)),
                "behavior", optional(behavior),
                "expect", required(calcExpectation(object(Map.of(
                        "replicas", optional(INT),
                        "utilization", optional(INT),
                        "value", optional(QUANTITY),
                        "error", optional(BOOL),
                        "exactQuantities", optional(BOOL)))))));
        kinds.put("calc", object(calc));

        Map<String, Field> normalize = common(config);
        normalize.putAll(Map.of(
                "minReplicas", optional(INT),
                "maxReplicas", required(INT),
                "specReplicas", required(INT),
                "proposedReplicas", required(INT),
                "behavior", optional(behavior),
                "history", optional(history),
                "expect", required(object(Map.of(
                        "replicas", required(INT),
                        "condition", optional(object(Map.of(
                                "type", required(oneOf("ScalingLimited")),
                                "status", required(oneOf("True", "False")),
                                "reason", required(STRING),
                                "message", optional(STRING)))))))));
        kinds.put("normalize", object(normalize));

        Map<String, Field> reconcile = common(config);
        reconcile.putAll(world);
        reconcile.putAll(Map.of(
                "hpa", required(hpa()),
                "scale", optional(object(Map.of(
                        "specReplicas", required(INT),
                        "statusReplicas", required(INT),
                        "selector", optional(nullable(STRING))))),
                "history", optional(history),
                "expect", required(object(Map.of(
                        "scaledTo", required(nullable(INT)),
                        "status", required(nonEmpty(model(HorizontalPodAutoscalerStatus.class))),
                        "events", optional(listOf(STRING)),
                        "eventMessages", optional(mapOf(STRING)),
                        "statusWritten", optional(BOOL),
                        "exactQuantities", optional(BOOL))))));
        kinds.put("reconcile", object(reconcile));
    }

    /** The kinds of case there are. */
    Set<String> kinds() {
        return kinds.keySet();
    }

    /** The first way the case does not fit its kind's format, or null when it fits. */
    String problem(String kind, JsonNode c) {
        Shape shape = kinds.get(kind);
        if (shape == null) {
            return "unknown case kind \"" + kind + "\" (expected " + String.join(", ", kinds.keySet()) + ")";
        }
        return shape.check("", c);
    }

    private static Map<String, Field> common(Shape config) {
        Map<String, Field> m = new LinkedHashMap<>();
        m.put("kind", required(STRING));
        m.put("name", required(STRING));
        m.put("from", optional(STRING));
        m.put("config", optional(config));
        return m;
    }

    /** A calc case expects a proposal ({@code replicas}) or a failure ({@code error: true}), not both, not neither. */
    private static Shape calcExpectation(Shape fields) {
        return (path, node) -> {
            String problem = fields.check(path, node);
            if (problem != null) {
                return problem;
            }
            boolean error = node.path("error").asBoolean(false);
            boolean result = node.has("replicas") || node.has("utilization") || node.has("value");
            if (error && result) {
                return at(path, "expects the computation to fail (error: true) and also a result; expect one or the other");
            }
            if (!error && !node.has("replicas")) {
                return at(path, "expects nothing: a calc case needs \"replicas\" (the proposal) or \"error\": true");
            }
            return null;
        };
    }

    /** The HPA of a reconcile case: an autoscaling/v2 object plus the "...SecondsAgo" keys of its status. */
    private Shape hpa() {
        Shape asModel = model(HorizontalPodAutoscaler.class);
        return (path, node) -> {
            if (!node.isObject()) {
                return at(path, "expected an object, got " + node);
            }
            ObjectNode copy = node.deepCopy();
            JsonNode status = copy.path("status");
            if (status instanceof ObjectNode s) {
                String problem = removeInt(s, LAST_SCALE_TIME_AGO, path + ".status");
                if (problem != null) {
                    return problem;
                }
                int i = 0;
                for (JsonNode c : s.path("conditions")) {
                    if (c instanceof ObjectNode o) {
                        problem = removeInt(o, LAST_TRANSITION_TIME_AGO, path + ".status.conditions[" + i + "]");
                        if (problem != null) {
                            return problem;
                        }
                    }
                    i++;
                }
            }
            return asModel.check(path, copy);
        };
    }

    private static String removeInt(ObjectNode o, String key, String path) {
        JsonNode v = o.remove(key);
        return v == null ? null : INT.check(path + "." + key, v);
    }

    // ---- shapes ----

    private static final Shape INT = scalar("an integer", JsonNode::isIntegralNumber);
    private static final Shape NUMBER = scalar("a number", JsonNode::isNumber);
    private static final Shape BOOL = scalar("true or false", JsonNode::isBoolean);
    private static final Shape STRING = scalar("a string", JsonNode::isTextual);
    private static final Shape QUANTITY = (path, node) -> {
        if (!node.isTextual()) {
            return at(path, "expected a quantity string (\"500m\", \"1\", \"300Mi\"), got " + node);
        }
        try {
            Quantities.milliValue(node.asText());
            return null;
        } catch (IllegalArgumentException e) {
            return at(path, "not a quantity: " + node);
        }
    };

    private static Shape scalar(String what, Predicate<JsonNode> test) {
        return (path, node) -> test.test(node) ? null : at(path, "expected " + what + ", got " + node);
    }

    private static Shape oneOf(String... values) {
        List<String> allowed = List.of(values);
        return (path, node) -> node.isTextual() && allowed.contains(node.asText()) ? null
                : at(path, "expected one of " + String.join(", ", allowed) + ", got " + node);
    }

    private static Shape nullable(Shape shape) {
        return (path, node) -> node.isNull() ? null : shape.check(path, node);
    }

    private static Shape nonEmpty(Shape shape) {
        return (path, node) -> node.isObject() && node.isEmpty() ? at(path, "expects nothing (an empty object)") : shape.check(path, node);
    }

    private static Field required(Shape shape) {
        return new Field(shape, true);
    }

    private static Field optional(Shape shape) {
        return new Field(shape, false);
    }

    private static Shape object(Map<String, Field> fields) {
        return (path, node) -> {
            if (!node.isObject()) {
                return at(path, "expected an object, got " + node);
            }
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String key = it.next();
                if (!fields.containsKey(key)) {
                    return at(join(path, key), "unknown key (known here: " + String.join(", ", fields.keySet().stream().sorted().toList()) + ")");
                }
            }
            for (Map.Entry<String, Field> f : fields.entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
                JsonNode value = node.get(f.getKey());
                if (value == null) {
                    if (f.getValue().required()) {
                        return at(join(path, f.getKey()), "required");
                    }
                    continue;
                }
                String problem = f.getValue().shape().check(join(path, f.getKey()), value);
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        };
    }

    private static Shape mapOf(Shape values) {
        return (path, node) -> {
            if (!node.isObject()) {
                return at(path, "expected an object, got " + node);
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String problem = values.check(join(path, e.getKey()), e.getValue());
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        };
    }

    private static Shape listOf(Shape items) {
        return (path, node) -> {
            if (!node.isArray()) {
                return at(path, "expected a list, got " + node);
            }
            for (int i = 0; i < node.size(); i++) {
                String problem = items.check(path + "[" + i + "]", node.get(i));
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        };
    }

    /**
     * An object of the Kubernetes API: it must convert to the model class, hold no field the class does not
     * know, and keep the JSON type of every value (an integer field given as "5" converts, but is refused).
     */
    private Shape model(Class<?> type) {
        return (path, node) -> {
            if (!node.isObject()) {
                return at(path, "expected an object, got " + node);
            }
            Object value;
            try {
                value = serialization.convertValue(node, type);
            } catch (RuntimeException e) {
                return at(path, "not a valid " + type.getSimpleName() + ": " + e.getMessage());
            }
            List<String> unknown = UnknownFields.in(value);
            if (!unknown.isEmpty()) {
                return at(join(path, unknown.get(0)), "unknown field of " + type.getSimpleName());
            }
            return typeChange(path, node, serialization.convertValue(value, JsonNode.class));
        };
    }

    /** Where a value read into the model comes back with another JSON type (a string where the API has a number). */
    private static String typeChange(String path, JsonNode given, JsonNode read) {
        if (read == null || read.isMissingNode() || read.isNull() || given.isNull()) {
            return null;
        }
        if (given.isObject() && read.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = given.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String problem = typeChange(join(path, e.getKey()), e.getValue(), read.get(e.getKey()));
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        }
        if (given.isArray() && read.isArray()) {
            for (int i = 0; i < Math.min(given.size(), read.size()); i++) {
                String problem = typeChange(path + "[" + i + "]", given.get(i), read.get(i));
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        }
        if (given.getNodeType() != read.getNodeType() || given.isIntegralNumber() != read.isIntegralNumber()) {
            return at(path, "expected " + describe(read) + ", got " + given);
        }
        return null;
    }

    private static String describe(JsonNode n) {
        if (n.isIntegralNumber()) {
            return "an integer";
        }
        if (n.isNumber()) {
            return "a number";
        }
        if (n.isTextual()) {
            return "a string";
        }
        if (n.isBoolean()) {
            return "true or false";
        }
        return n.isArray() ? "a list" : "an object";
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static String at(String path, String problem) {
        return (path.isEmpty() ? "" : path + ": ") + problem;
    }
}
