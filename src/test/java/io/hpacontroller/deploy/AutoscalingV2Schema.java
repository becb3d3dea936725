package io.hpacontroller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The OpenAPI v3 schemas of autoscaling/v2's HorizontalPodAutoscaler spec and status, as kube-apiserver
 * serves them at {@code /openapi/v3/apis/autoscaling/v2}: the two types and every type they reference,
 * nothing else. The copy in {@link #VENDORED} was taken from the test fixture's kube-apiserver v1.26.1
 * ({@code MirrorCrdIT} checks that it still is what that server serves, and writes it anew with
 * {@code -Dopenapi.capture=true}); the mirror CRD's schema is generated from it ({@link MirrorCrd}).
 */
final class AutoscalingV2Schema {

    static final Path VENDORED = Path.of("src", "test", "resources", "openapi", "autoscaling-v2.json");
    static final String PREFIX = "io.k8s.api.autoscaling.v2.";
    static final String SPEC = PREFIX + "HorizontalPodAutoscalerSpec";
    static final String STATUS = PREFIX + "HorizontalPodAutoscalerStatus";
    private static final String REF_PREFIX = "#/components/schemas/";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private AutoscalingV2Schema() {
    }

    /** The schemas reachable from the spec and the status, by name, sorted. */
    static ObjectNode extract(JsonNode openApiDocument) {
        JsonNode all = openApiDocument.path("components").path("schemas");
        Map<String, JsonNode> out = new TreeMap<>();
        Deque<String> todo = new ArrayDeque<>();
        todo.add(SPEC);
        todo.add(STATUS);
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (out.containsKey(name)) {
                continue;
            }
            JsonNode schema = all.get(name);
            if (schema == null) {
                throw new IllegalStateException("the OpenAPI document has no schema " + name);
            }
            out.put(name, schema);
            collectRefs(schema, todo);
        }
        ObjectNode result = JSON.createObjectNode();
        out.forEach(result::set);
        return result;
    }

    private static void collectRefs(JsonNode node, Deque<String> todo) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && ref.isTextual() && ref.asText().startsWith(REF_PREFIX)) {
                todo.add(ref.asText().substring(REF_PREFIX.length()));
            }
            for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
                collectRefs(it.next(), todo);
            }
        } else if (node.isArray()) {
            node.forEach(n -> collectRefs(n, todo));
        }
    }

    static String referencedName(JsonNode ref) {
        String text = ref.asText();
        if (!text.startsWith(REF_PREFIX)) {
            throw new IllegalArgumentException("not a local schema reference: " + text);
        }
        return text.substring(REF_PREFIX.length());
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode vendored() {
        try {
            return (ObjectNode) JSON.readTree(Files.readString(VENDORED));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void writeVendored(JsonNode schemas) {
        try {
            Files.writeString(VENDORED, JSON.writeValueAsString(JSON.treeToValue(schemas, Object.class)) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
