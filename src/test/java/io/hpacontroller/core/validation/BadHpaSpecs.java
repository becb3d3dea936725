package io.hpacontroller.core.validation;

import java.util.List;

/**
 * HPAs the API server refuses, with the errors kube-apiserver v1.26.1 answered to a create with {@code fieldValidation=Strict}
 * (checked by {@code HpaValidationIT}, a quantity printed as its text). Shared by the unit test of our
 * validation and the test that asks the real API server.
 */
final class BadHpaSpecs {

    /**
     * One refused HPA.
     *
     * @param name     what is wrong
     * @param yaml     the HPA
     * @param errors   the problems, in the API server's order
     * @param decoding whether the API server refuses it while decoding (400) rather than in validation (422)
     */
    record Case(String name, String yaml, List<String> errors, boolean decoding) {
        @Override
        public String toString() {
            return name;
        }
    }

    static String hpa(String name, String spec) {
        return """
                apiVersion: autoscaling/v2
                kind: HorizontalPodAutoscaler
                metadata: {name: %s, namespace: default}
                spec:
                  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
                %s""".formatted(name, spec.indent(2));
    }

    // upstream reports an unknown metric type twice (its ErrorList; kubectl prints it once)
    private static final String UNSUPPORTED_RESOURCES = "spec.metrics[0].type: Unsupported value: \"Resources\": supported values:"
            + " \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\"";
    private static final String UNSUPPORTED_EMPTY = "spec.metrics[2].type: Unsupported value: \"\": supported values:"
            + " \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\"";

    static final List<Case> VALIDATION = List.of(
            new Case("a misspelled target type", hpa("a", """
                    maxReplicas: 5
                    metrics:
                    - type: Resource
                      resource: {name: cpu, target: {type: Utilisation, averageUtilization: 50}}
                    """), List.of("spec.metrics[0].resource.target.type: Invalid value: \"Utilisation\": must be either Utilization, Value, or AverageValue"),
                    false),
            new Case("an unknown metric type", hpa("a", """
                    maxReplicas: 5
                    metrics:
                    - type: Resources
                      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
                    """), List.of(UNSUPPORTED_RESOURCES, UNSUPPORTED_RESOURCES), false),
            new Case("targets that are not positive", hpa("a", """
                    maxReplicas: 5
                    metrics:
                    - type: Resource
                      resource: {name: cpu, target: {type: Utilization, averageUtilization: 0}}
                    - type: Pods
                      pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "-1"}}
                    - type: External
                      external: {metric: {name: q}, target: {type: Value, value: "0"}}
                    - type: Object
                      object: {describedObject: {kind: Service, name: s}, metric: {name: x}, target: {type: Value, value: 0.5m}}
                    """), List.of(
                    "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
                    "spec.metrics[1].pods.target.averageValue: Invalid value: \"-1\": must be positive",
                    "spec.metrics[2].external.target.value: Invalid value: \"0\": must be positive"), false),
            new Case("minReplicas above maxReplicas", hpa("a", """
                    minReplicas: 6
                    maxReplicas: 5
                    """), List.of("spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"), false),
            new Case("behavior out of range", hpa("a", """
                    maxReplicas: 5
                    behavior:
                      scaleUp:
                        stabilizationWindowSeconds: 4000
                        selectPolicy: Maximum
                        policies: [{type: Pod, value: 0, periodSeconds: 2000}]
                      scaleDown:
                        stabilizationWindowSeconds: -1
                    """), List.of(
                    "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
                    "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Maximum\": supported values: \"Disabled\", \"Max\", \"Min\"",
                    "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"Pod\": supported values: \"Percent\", \"Pods\"",
                    "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
                    "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800",
                    "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero"), false),
            new Case("metric sources missing, doubled or without a type", hpa("a", """
                    maxReplicas: 5
                    metrics:
                    - type: Resource
                      pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "1"}}
                    - type: Resource
                      resource: {name: cpu, target: {type: Utilization, averageValue: 1}}
                      pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "1"}}
                    - {}
                    """), List.of(
                    "spec.metrics[0].resource: Required value: must populate information for the given metric source",
                    "spec.metrics[1].pods: Forbidden: must populate the given metric source only",
                    "spec.metrics[2].type: Required value: must specify a metric source type",
                    UNSUPPORTED_EMPTY, UNSUPPORTED_EMPTY),
                    false),
            new Case("names and references", """
                    apiVersion: autoscaling/v2
                    kind: HorizontalPodAutoscaler
                    metadata: {name: My_HPA, namespace: default}
                    spec:
                      scaleTargetRef: {apiVersion: apps/v1, kind: "a/b", name: ".."}
                      maxReplicas: 3
                      metrics:
                      - type: Pods
                        pods: {metric: {name: "a%b"}, target: {type: Value, value: 3}}
                      - type: Object
                        object: {describedObject: {name: s}, metric: {name: ""}, target: {type: AverageValue}}
                      - type: External
                        external: {metric: {name: q}, target: {type: Value, value: 3, averageValue: 4}}
                      - type: Resource
                        resource: {target: {averageUtilization: 3}}
                    """, List.of(
                    "metadata.name: Invalid value: \"My_HPA\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters,"
                            + " '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is"
                            + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                    "spec.scaleTargetRef.kind: Invalid value: \"a/b\": may not contain '/'",
                    "spec.scaleTargetRef.name: Invalid value: \"..\": may not be '..'",
                    "spec.metrics[0].pods.metric.name: Invalid value: \"a%b\": may not contain '%'",
                    "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue",
                    "spec.metrics[1].object.describedObject.kind: Required value",
                    "spec.metrics[1].object.metric.name: Required value: must specify a metric name",
                    "spec.metrics[1].object.target.averageValue: Required value: must set either a target value or averageValue",
                    "spec.metrics[2].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
                    "spec.metrics[3].resource.name: Required value: must specify a resource name",
                    "spec.metrics[3].resource.target.type: Required value: must specify a metric target type",
                    "spec.metrics[3].resource.target.type: Invalid value: \"\": must be either Utilization, Value, or AverageValue"), false),
            new Case("no scale target", """
                    apiVersion: autoscaling/v2
                    kind: HorizontalPodAutoscaler
                    metadata: {name: a, namespace: default}
                    spec:
                      maxReplicas: 3
                    """, List.of("spec.scaleTargetRef.kind: Required value", "spec.scaleTargetRef.name: Required value"), false));

    /** Refused while decoding; the API server names the first wrong-typed value only, we name them all. */
    static final List<Case> DECODING = List.of(
            new Case("a misspelled field", hpa("a", """
                    maxReplicas: 5
                    metrics:
                    - type: Resource
                      resource: {name: cpu, target: {type: Utilization, averageUtilisation: 50}}
                    """), List.of("spec.metrics[0].resource.target.averageUtilisation: unknown field (known fields: averageUtilization, averageValue, type, value)"),
                    true),
            new Case("three unknown fields", """
                    apiVersion: autoscaling/v2
                    kind: HorizontalPodAutoscaler
                    metadata: {name: a, namespace: default}
                    spec:
                      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web, namespace: x}
                      maxReplicas: 3
                      minReplica: 1
                      behaviour: {}
                    """, List.of(
                    "spec.scaleTargetRef.namespace: unknown field (known fields: apiVersion, kind, name)",
                    "spec.minReplica: unknown field (known fields: behavior, maxReplicas, metrics, minReplicas, scaleTargetRef)",
                    "spec.behaviour: unknown field (known fields: behavior, maxReplicas, metrics, minReplicas, scaleTargetRef)"), true),
            new Case("values of the wrong type", hpa("a", """
                    maxReplicas: "three"
                    minReplicas: 1.5
                    metrics:
                    - type: Resource
                      resource: {name: cpu, target: {type: Utilization, averageUtilization: "50"}}
                    """), List.of(
                    "spec.maxReplicas: cannot unmarshal string \"three\" into int32",
                    "spec.minReplicas: cannot unmarshal number 1.5 into int32",
                    "spec.metrics[0].resource.target.averageUtilization: cannot unmarshal string \"50\" into int32"), true),
            new Case("a malformed quantity", hpa("a", """
                    maxReplicas: 3
                    metrics:
                    - type: Pods
                      pods: {metric: {name: x}, target: {type: AverageValue, averageValue: ten}}
                    """), List.of("spec.metrics[0].pods.target.averageValue: Invalid value: \"ten\": quantities must match the regular expression"
                    + " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"), true));

    private BadHpaSpecs() {
    }
}
