package io.hpacontroller.core.validation;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Our validation against the real API server (kube-apiserver v1.26.1, HPAScaleToZero off): each HPA of
 * {@link BadHpaSpecs} is created with {@code dryRun=All&fieldValidation=Strict} (what {@code kubectl apply}
 * sends), and the server's answer is compared with ours: the same errors on the same paths in the same order
 * for validation (a quantity printed by the server as a Go struct is compared as its text); the same unknown
 * fields, or the first wrong value, for decoding.
 */
@RealKube
class HpaValidationIT {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final Pattern GO_QUANTITY = Pattern.compile("resource\\.Quantity\\{.*?, s:\"([^\"]*)\", Format:\"\\w+\"}");
    private static final Pattern UNKNOWN_FIELD = Pattern.compile("unknown field \"([^\"]+)\"");
    private static final Pattern WRONG_TYPE = Pattern.compile("cannot unmarshal (\\w+) into Go struct field \\w+\\.(\\S+) of type (\\w+)");

    private record Answer(int code, Status status) {
    }

    private static Answer create(KubeControlPlane kube, TestNamespace ns, String yaml) throws Exception {
        JsonNode hpa = SERIALIZATION.unmarshal(yaml.replace("namespace: default", "namespace: " + ns.name()), JsonNode.class);
        HttpClient http = kube.adminClient().getHttpClient();
        HttpRequest request = http.newHttpRequestBuilder()
                .uri(kube.url() + "/apis/autoscaling/v2/namespaces/" + ns.name() + "/horizontalpodautoscalers?dryRun=All&fieldValidation=Strict")
                .post("application/json", SERIALIZATION.asJson(hpa)).build();
        HttpResponse<String> response = http.sendAsync(request, String.class).get(Waits.STATE.toSeconds(), TimeUnit.SECONDS);
        Status status = response.code() >= 400 ? SERIALIZATION.unmarshal(response.body(), Status.class) : null;
        return new Answer(response.code(), status);
    }

    @Test
    void theApiServerRefusesEachSpecWithTheErrorsWeReport(KubeControlPlane kube, TestNamespace ns) throws Exception {
        for (BadHpaSpecs.Case c : BadHpaSpecs.VALIDATION) {
            Answer answer = create(kube, ns, c.yaml());
            assertThat(answer.code()).as(c.name()).isEqualTo(422);
            List<String> server = new ArrayList<>();
            for (StatusCause cause : answer.status().getDetails().getCauses()) {
                server.add(cause.getField() + ": " + GO_QUANTITY.matcher(cause.getMessage()).replaceAll("\"$1\""));
            }
            assertThat(server).as(c.name()).containsExactlyElementsOf(c.errors());
            assertThat(HpaValidationTest.validate(c.yaml(), HpaValidationTest.NO_SCALE_TO_ZERO)).as(c.name()).containsExactlyElementsOf(server);
        }
    }

    @Test
    void theApiServerRefusesUnknownFieldsAndWrongValuesWhileDecodingAsWeDo(KubeControlPlane kube, TestNamespace ns) throws Exception {
        for (BadHpaSpecs.Case c : BadHpaSpecs.DECODING) {
            Answer answer = create(kube, ns, c.yaml());
            assertThat(answer.code()).as(c.name()).isEqualTo(400);
            String message = answer.status().getMessage();
            List<FieldError> ours = HpaValidationTest.decode(c.yaml()).errors();
            assertThat(ours).extracting(FieldError::toString).as(c.name()).containsExactlyElementsOf(c.errors());

            List<String> unknown = UNKNOWN_FIELD.matcher(message).results().map(m -> m.group(1)).toList();
            Matcher wrong = WRONG_TYPE.matcher(message);
            if (!unknown.isEmpty()) {
                assertThat(unknown).as(message).containsExactlyInAnyOrderElementsOf(ours.stream().map(e -> e.field().toString()).toList());
            } else if (wrong.find()) {
                // the server stops at the first; Go's path has no list indices
                assertThat(ours.get(0).field().toString().replaceAll("\\[\\d+]", "")).as(message).isEqualTo(wrong.group(2));
                assertThat(ours.get(0).toString()).as(message).contains("cannot unmarshal " + wrong.group(1)).endsWith(" into " + wrong.group(3));
            } else {
                assertThat(message).as(c.name()).endsWith(ours.get(0).detail());
            }
        }
    }

    @Test
    void aValidSpecIsAcceptedByBoth(KubeControlPlane kube, TestNamespace ns) throws Exception {
        String yaml = BadHpaSpecs.hpa("web", """
                minReplicas: 2
                maxReplicas: 10
                metrics:
                - type: Resource
                  resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
                - type: External
                  external: {metric: {name: queue, selector: {matchLabels: {queue: jobs}}}, target: {type: AverageValue, averageValue: 30}}
                behavior:
                  scaleUp: {stabilizationWindowSeconds: 0, selectPolicy: Max, policies: [{type: Pods, value: 4, periodSeconds: 15}]}
                  scaleDown: {selectPolicy: Disabled}
                """);
        assertThat(create(kube, ns, yaml).code()).isEqualTo(201);
        assertThat(HpaValidationTest.validate(yaml, HpaValidationTest.NO_SCALE_TO_ZERO)).isEmpty();
    }
}
