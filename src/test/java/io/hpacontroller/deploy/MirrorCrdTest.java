package io.hpacontroller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.conformance.UnknownFields;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.LastDecision;
import io.hpacontroller.hpa.MirrorHpa;
import io.hpacontroller.hpa.MirrorHpaStatus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mirror API's CRD: what the chart ships is what {@link MirrorCrd} generates, its schema has exactly the
 * fields of autoscaling/v2 in fabric8's model (so a fabric8 upgrade that brings a new autoscaling/v2 field
 * fails here until the CRD is regenerated), and it is a structural schema.
 *
 * <p>Regenerate after a change: {@code mvn -q -B test -Dtest=MirrorCrdTest -Dcrd.regenerate=true}, then
 * {@code -Dtest=DeployManifestsTest -Ddeploy.regenerate=true} for deploy/.
 */
class MirrorCrdTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    @BeforeAll
    static void regenerateWhenAsked() throws IOException {
        if (Boolean.getBoolean("crd.regenerate")) {
            Files.createDirectories(MirrorCrd.CHART_FILE.getParent());
            Files.writeString(MirrorCrd.CHART_FILE, MirrorCrd.yaml());
        }
    }

    @Test
    void theChartShipsTheGeneratedCrd() {
        assertThat(Manifests.read(MirrorCrd.CHART_FILE)).isEqualTo(MirrorCrd.yaml());
    }

    @Test
    void theCrdIsTheMirrorApiWithItsNamesAndColumns() {
        CustomResourceDefinition crd = shipped();

        assertThat(UnknownFields.in(crd)).isEmpty();
        assertThat(crd.getSpec().getGroup()).isEqualTo(HpaApi.MIRROR.group());
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo("HorizontalPodAutoscaler");
        assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("xhpa");
        assertThat(crd.getSpec().getNames().getCategories()).containsExactly("all");
        assertThat(crd.getSpec().getVersions()).singleElement().satisfies(v -> {
            assertThat(v.getName()).isEqualTo(HpaApi.MIRROR.version());
            assertThat(v.getSubresources().getStatus()).isNotNull();
            assertThat(v.getSubresources().getScale()).isNull();
            assertThat(v.getAdditionalPrinterColumns()).extracting(c -> c.getName().toUpperCase())
                    .containsExactly("REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE");
        });
        // the fabric8 class the controller reads and writes is this CRD's kind
        assertThat(new MirrorHpa().getApiVersion()).isEqualTo(HpaApi.MIRROR.apiVersion());
        assertThat(new MirrorHpa().getKind()).isEqualTo(crd.getSpec().getNames().getKind());
        assertThat(MirrorCrd.NAME).isEqualTo(crd.getMetadata().getName());
    }

    @Test
    void specAndStatusHaveExactlyTheFieldsOfAutoscalingV2InFabric8sModel() {
        JsonNode root = schema();
        List<String> differences = new ArrayList<>();
        compare("spec", root.get("properties").get("spec"), HorizontalPodAutoscalerSpec.class, differences);
        compare("status", root.get("properties").get("status"), MirrorHpaStatus.class, differences);

        assertThat(differences).as("fields of the CRD's schema against fabric8's autoscaling/v2 model").isEmpty();
    }

    @Test
    void theSpecAddsThePerHpaControlsWithTheirRanges() {
        JsonNode spec = schema().get("properties").get("spec").get("properties");
        JsonNode behavior = spec.get("behavior").get("properties");

        assertThat(spec.get("mode").get("enum")).extracting(JsonNode::asText).containsExactly("Auto", "Preview", "Suspended");
        assertThat(spec.get("fallback").get("required")).extracting(JsonNode::asText).containsExactly("failureDurationSeconds", "replicas");
        assertThat(range(spec.get("fallback").get("properties").get("failureDurationSeconds"))).isEqualTo("1..86400");
        assertThat(spec.get("fallback").get("properties").get("replicas").get("minimum").asInt()).isEqualTo(1);
        assertThat(range(behavior.get("syncPeriodSeconds"))).isEqualTo("1..3600");
        assertThat(range(spec.get("syncPeriodSeconds"))).as("KEP-6003's spelling").isEqualTo("1..3600");
        assertThat(spec.get("cadence").get("enum")).extracting(JsonNode::asText).containsExactly("Fresh", "Spread");
        assertThat(range(behavior.get("cpuInitializationPeriodSeconds"))).isEqualTo("0..3600");
        assertThat(range(behavior.get("initialReadinessDelaySeconds"))).isEqualTo("0..3600");
        // what the CRD accepts, the controller reads: one model from either source
        MirrorHpa parsed = SERIALIZATION.unmarshal("""
                apiVersion: autoscaling.hpa-controller.io/v1
                kind: HorizontalPodAutoscaler
                metadata: {name: web, namespace: shop}
                spec:
                  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
                  maxReplicas: 10
                  mode: Preview
                  cadence: Fresh
                  syncPeriodSeconds: 3
                  fallback: {replicas: 6, failureDurationSeconds: 120}
                  behavior: {syncPeriodSeconds: 3, cpuInitializationPeriodSeconds: 120, initialReadinessDelaySeconds: 60}
                """, MirrorHpa.class);
        assertThat(io.hpacontroller.core.controls.HpaControls.of(parsed.toCore())).isEqualTo(io.hpacontroller.core.Parsed.valid(
                new io.hpacontroller.core.controls.HpaControls(java.time.Duration.ofSeconds(3),
                        new io.hpacontroller.core.controls.Fallback(6, java.time.Duration.ofMinutes(2)), io.hpacontroller.core.controls.Mode.PREVIEW,
                        java.time.Duration.ofMinutes(2), java.time.Duration.ofMinutes(1), null, null,
                        io.hpacontroller.core.controls.SyncCadence.FRESH)));
    }

    private static String range(JsonNode integer) {
        assertThat(integer.get("type").asText()).isEqualTo("integer");
        return integer.get("minimum").asLong() + ".." + integer.get("maximum").asLong();
    }

    @Test
    void theStatusAddsOnlyThePrinterColumnsFieldsAndTheLastDecision() {
        Set<String> v2 = MirrorCrd.modelProperties(HorizontalPodAutoscalerStatus.class).keySet();
        Set<String> mirror = MirrorCrd.modelProperties(MirrorHpaStatus.class).keySet();

        assertThat(mirror).containsExactlyInAnyOrderElementsOf(MirrorCrd.STATUS_EXTRAS.keySet());
        assertThat(v2).doesNotContainAnyElementsOf(mirror);
    }

    @Test
    void theSchemaIsStructural() {
        List<String> problems = new ArrayList<>();
        structural("", schema(), problems);

        assertThat(problems).isEmpty();
    }

    private static CustomResourceDefinition shipped() {
        return SERIALIZATION.unmarshal(Manifests.read(MirrorCrd.CHART_FILE), CustomResourceDefinition.class);
    }

    private static JsonNode schema() {
        return SERIALIZATION.convertValue(shipped().getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema(), JsonNode.class);
    }

    /** Every field of the model class is in the schema with a matching type, and nothing else is. */
    private static void compare(String path, JsonNode schema, Class<?> model, List<String> differences) {
        Map<String, Field> fields = allModelProperties(model);
        JsonNode properties = schema.get("properties");
        List<String> inSchema = new ArrayList<>();
        properties.fieldNames().forEachRemaining(inSchema::add);
        for (String name : inSchema) {
            if (!fields.containsKey(name) && !MirrorCrd.CONTROL_FIELDS.contains(path + "." + name)) {
                differences.add(path + "." + name + ": in the CRD, not in " + model.getName());
            }
        }
        fields.forEach((name, field) -> {
            JsonNode property = properties.get(name);
            if (property == null) {
                differences.add(path + "." + name + ": in " + model.getName() + ", not in the CRD");
            } else {
                compareType(path + "." + name, property, field.getGenericType(), differences);
            }
        });
    }

    private static Map<String, Field> allModelProperties(Class<?> model) {
        Map<String, Field> fields = new java.util.TreeMap<>();
        for (Class<?> c = model; c != null && c != Object.class; c = c.getSuperclass()) {
            MirrorCrd.modelProperties(c).forEach(fields::putIfAbsent);
        }
        return fields;
    }

    private static void compareType(String path, JsonNode property, Type type, List<String> differences) {
        if (type == Quantity.class) {
            expect(path, property.path("x-kubernetes-int-or-string").asBoolean(), "an int-or-string quantity", differences);
        } else if (type == Integer.class || type == Long.class) {
            expect(path, "integer".equals(property.path("type").asText()), "an integer", differences);
        } else if (type == String.class) {
            expect(path, "string".equals(property.path("type").asText()), "a string", differences);
        } else if (type == Boolean.class) {
            expect(path, "boolean".equals(property.path("type").asText()), "a boolean", differences);
        } else if (type instanceof java.lang.reflect.ParameterizedType p && p.getRawType() == List.class) {
            if (expect(path, "array".equals(property.path("type").asText()), "an array", differences)) {
                compareType(path + "[]", property.get("items"), MirrorCrd.elementType(type), differences);
            }
        } else if (type instanceof java.lang.reflect.ParameterizedType p && p.getRawType() == Map.class) {
            if (expect(path, property.has("additionalProperties"), "a map", differences)) {
                compareType(path + "{}", property.get("additionalProperties"), p.getActualTypeArguments()[1], differences);
            }
        } else if (type instanceof Class<?> c && (c.getName().startsWith("io.fabric8.kubernetes.api.model") || c == LastDecision.class)) {
            if (expect(path, "object".equals(property.path("type").asText()) && property.has("properties"), "an object", differences)) {
                compare(path, property, c, differences);
            }
        } else {
            differences.add(path + ": no comparison for the model type " + type);
        }
    }

    private static boolean expect(String path, boolean ok, String what, List<String> differences) {
        if (!ok) {
            differences.add(path + ": the model has " + what + ", the CRD does not");
        }
        return ok;
    }

    /** Every node typed (or int-or-string), no reference or combinator left from the OpenAPI document. */
    private static void structural(String path, JsonNode node, List<String> problems) {
        for (String forbidden : List.of("$ref", "allOf", "oneOf", "not", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key")) {
            if (node.has(forbidden)) {
                problems.add(path + ": has " + forbidden);
            }
        }
        if (!node.has("type") && !node.path("x-kubernetes-int-or-string").asBoolean()) {
            problems.add(path + ": no type");
        }
        if (node.has("properties")) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.get("properties").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                structural(path + "." + e.getKey(), e.getValue(), problems);
            }
        }
        if (node.has("items")) {
            structural(path + "[]", node.get("items"), problems);
        }
        if (node.has("additionalProperties") && node.get("additionalProperties").isObject()) {
            structural(path + "{}", node.get("additionalProperties"), problems);
        }
    }
}
