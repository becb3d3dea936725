package io.hpacontroller.core.validation;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HpaValidationTest {

    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    static final HpaValidation.Options SCALE_TO_ZERO = new HpaValidation.Options(true);
    static final HpaValidation.Options NO_SCALE_TO_ZERO = new HpaValidation.Options(false);

    static final List<BadHpaSpecs.Case> VALIDATION = BadHpaSpecs.VALIDATION;
    static final List<BadHpaSpecs.Case> DECODING = BadHpaSpecs.DECODING;

    static StrictDecoding.Decoded<HorizontalPodAutoscaler> decode(String yaml) {
        return StrictDecoding.decode(SERIALIZATION.unmarshal(yaml, JsonNode.class), HorizontalPodAutoscaler.class);
    }

    static List<String> validate(String yaml, HpaValidation.Options options) {
        StrictDecoding.Decoded<HorizontalPodAutoscaler> d = decode(yaml);
        assertThat(d.errors()).as("decoding").isEmpty();
        return HpaValidation.validate(d.value(), options).stream().map(FieldError::toString).toList();
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("VALIDATION")
    void theApiServersMessagesWithTheirPaths(BadHpaSpecs.Case c) {
        assertThat(validate(c.yaml(), NO_SCALE_TO_ZERO)).containsExactlyElementsOf(c.errors());
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("DECODING")
    void unknownFieldsAndWrongTypesAreRefusedWhileDecodingWithTheirPaths(BadHpaSpecs.Case c) {
        StrictDecoding.Decoded<HorizontalPodAutoscaler> d = decode(c.yaml());
        assertThat(d.value()).isNull();
        assertThat(d.errors()).extracting(FieldError::toString).containsExactlyElementsOf(c.errors());
    }

    @Test
    void aValidHpaHasNoErrorAndDecodesToTheSameObjectAsFabric8() {
        String yaml = BadHpaSpecs.hpa("web", """
                minReplicas: 2
                maxReplicas: 10
                metrics:
                - type: Resource
                  resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
                - type: ContainerResource
                  containerResource: {name: memory, container: app, target: {type: AverageValue, averageValue: 200Mi}}
                - type: External
                  external:
                    metric: {name: queue, selector: {matchLabels: {queue: jobs}, matchExpressions: [{key: tier, operator: In, values: [a]}]}}
                    target: {type: AverageValue, averageValue: 30}
                - type: Object
                  object: {describedObject: {apiVersion: v1, kind: Service, name: s}, metric: {name: rps}, target: {type: Value, value: 1k}}
                behavior:
                  scaleUp: {stabilizationWindowSeconds: 0, selectPolicy: Max, policies: [{type: Pods, value: 4, periodSeconds: 15}], tolerance: 0.05}
                  scaleDown: {selectPolicy: Disabled}
                """);
        StrictDecoding.Decoded<HorizontalPodAutoscaler> d = decode(yaml);

        assertThat(d.errors()).isEmpty();
        assertThat(d.value()).isEqualTo(SERIALIZATION.unmarshal(yaml, HorizontalPodAutoscaler.class));
        assertThat(HpaValidation.validate(d.value(), SCALE_TO_ZERO)).isEmpty();
    }

    @Test
    void minReplicasZeroNeedsTheGateAndAnObjectOrExternalMetric() {
        String zero = BadHpaSpecs.hpa("a", "minReplicas: 0\nmaxReplicas: 0\n");
        assertThat(validate(zero, NO_SCALE_TO_ZERO)).containsExactly(
                "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas");
        assertThat(validate(zero, SCALE_TO_ZERO)).containsExactly(
                "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas");
        assertThat(validate(BadHpaSpecs.hpa("a", """
                minReplicas: 0
                maxReplicas: 3
                metrics:
                - type: External
                  external: {metric: {name: q}, target: {type: AverageValue, averageValue: 30}}
                """), SCALE_TO_ZERO)).isEmpty();
    }

    @Test
    void anUnsetMinReplicasCountsAsOneAndNoMetricsAsTheDefaultCpuMetric() {
        assertThat(validate(BadHpaSpecs.hpa("a", "maxReplicas: 0\n"), SCALE_TO_ZERO)).containsExactly(
                "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`");
        assertThat(validate(BadHpaSpecs.hpa("a", "maxReplicas: 1\nmetrics: []\n"), SCALE_TO_ZERO)).isEmpty();
    }

    @Test
    void containerResourceMetricsNameAStandardResourceAndAContainer() {
        assertThat(validate(BadHpaSpecs.hpa("a", """
                maxReplicas: 5
                metrics:
                - type: ContainerResource
                  containerResource: {name: cpus, container: App_1, target: {type: Utilization, averageUtilization: 50, averageValue: 1}}
                - type: ContainerResource
                """), SCALE_TO_ZERO)).containsExactly(
                "spec.metrics[0].containerResource.name: Invalid value: \"cpus\": must be a standard resource for containers",
                "spec.metrics[0].containerResource.container: Invalid value: \"App_1\": a lowercase RFC 1123 label must consist of lower case"
                        + " alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc',"
                        + " regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.metrics[0].containerResource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization",
                "spec.metrics[1].containerResource: Required value: must populate information for the given metric source");
    }

    @Test
    void aNegativeToleranceAndAPolicyWithoutValuesAreRefused() {
        assertThat(validate(BadHpaSpecs.hpa("a", """
                maxReplicas: 5
                behavior:
                  scaleDown: {tolerance: "-0.1", policies: [{}]}
                """), SCALE_TO_ZERO)).containsExactly(
                "spec.behavior.scaleDown.policies[0].type: Unsupported value: \"\": supported values: \"Percent\", \"Pods\"",
                "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
                "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 0: must be greater than zero",
                "spec.behavior.scaleDown.tolerance: Invalid value: \"-0.1\": must be greater than or equal to 0");
    }

    /** Where we differ: the API server accepts and stores these; reading them took 29 s of CPU before the bound. */
    @Test
    void absurdQuantitiesAreRefusedWhileDecodingWithTheirPaths() {
        assertThat(decode(BadHpaSpecs.hpa("a", """
                maxReplicas: 5
                metrics:
                - type: Pods
                  pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: "10e9999999"}}
                behavior:
                  scaleUp: {tolerance: "1e-100"}
                """)).errors().stream().map(FieldError::toString)).containsExactly(
                "spec.metrics[0].pods.target.averageValue: Invalid value: \"10e9999999\": the exponent of a quantity may have at most 2 digits (1e99 at most)",
                "spec.behavior.scaleUp.tolerance: Invalid value: \"1e-100\": the exponent of a quantity may have at most 2 digits (1e99 at most)");
    }

    @Test
    void metadataNeedsANameAndANamespace() {
        String yaml = BadHpaSpecs.hpa("a", "maxReplicas: 1\n").replace("metadata: {name: a, namespace: default}", "metadata: {namespace: Prod}");
        assertThat(validate(yaml, SCALE_TO_ZERO)).containsExactly(
                "metadata.name: Required value: name or generateName is required",
                "metadata.namespace: Invalid value: \"Prod\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-',"
                        + " and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is"
                        + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    }
}
