package io.hpacontroller.core.validation;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.GoText;
import io.hpacontroller.core.Quantities;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Decodes JSON (or YAML read as JSON) into a fabric8 model object the way the API server decodes a request
 * with {@code fieldValidation=Strict} ({@code kubectl apply}'s default {@code --validate=strict}): a field the
 * type does not have, a value of the wrong JSON type and a malformed quantity are errors with their path.
 * fabric8 alone would keep an unknown field in {@code additionalProperties} and turn {@code "50"} into 50, so a
 * misspelled {@code averageUtilisation} would silently leave the target unset.
 */
public final class StrictDecoding {

    /** Upstream's message for a quantity that does not parse. */
    private static final Pattern QUANTITY = Pattern.compile(Quantities.QUANTITY_FORMAT);

    private static final ObjectMapper INTROSPECTION = new ObjectMapper();
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final Map<Class<?>, Map<String, JavaType>> FIELDS = new ConcurrentHashMap<>();

    /**
     * The decoded object, or the problems that kept it from being decoded.
     *
     * @param value  the object; null when there were errors
     * @param errors the problems, paths relative to the object ({@code spec.minReplica}); empty when decoded
     */
    public record Decoded<T>(T value, List<FieldError> errors) {
    }

    private final List<FieldError> errors = new ArrayList<>();

    private StrictDecoding() {
    }

    /** Decodes {@code node} into {@code type} when it has no unknown field and no value of the wrong type. */
    public static <T> Decoded<T> decode(JsonNode node, Class<T> type) {
        StrictDecoding d = new StrictDecoding();
        d.walk(node, INTROSPECTION.constructType(type), FieldPath.of(""));
        if (!d.errors.isEmpty()) {
            return new Decoded<>(null, List.copyOf(d.errors));
        }
        return new Decoded<>(SERIALIZATION.convertValue(node, type), List.of());
    }

    private void walk(JsonNode n, JavaType type, FieldPath path) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return; // Go leaves the zero value
        }
        Class<?> raw = type.getRawClass();
        if (raw == Quantity.class) {
            quantity(n, path);
        } else if (raw == IntOrString.class) {
            expect(n.isTextual() || n.isIntegralNumber() && n.canConvertToInt(), n, path, "int or string");
        } else if (raw == String.class) {
            expect(n.isTextual(), n, path, "string");
        } else if (raw == Integer.class || raw == int.class) {
            expect(n.isIntegralNumber() && n.canConvertToInt(), n, path, "int32");
        } else if (raw == Long.class || raw == long.class) {
            expect(n.isIntegralNumber() && n.canConvertToLong(), n, path, "int64");
        } else if (raw == Boolean.class || raw == boolean.class) {
            expect(n.isBoolean(), n, path, "bool");
        } else if (raw == Double.class || raw == double.class || raw == Float.class || raw == float.class) {
            expect(n.isNumber(), n, path, "float64");
        } else if (type.isCollectionLikeType() || type.isArrayType()) {
            if (expect(n.isArray(), n, path, "a list")) {
                for (int i = 0; i < n.size(); i++) {
                    walk(n.get(i), type.getContentType(), path.index(i));
                }
            }
        } else if (type.isMapLikeType()) {
            if (expect(n.isObject(), n, path, "a map")) {
                for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    walk(e.getValue(), type.getContentType(), path.key(e.getKey()));
                }
            }
        } else if (raw != Object.class && !JsonNode.class.isAssignableFrom(raw)) {
            object(n, raw, path);
        }
    }

    private void object(JsonNode n, Class<?> type, FieldPath path) {
        if (!expect(n.isObject(), n, path, "an object")) {
            return;
        }
        Map<String, JavaType> fields = fields(type);
        if (fields.isEmpty()) {
            return; // free-form (managedFields' fieldsV1)
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JavaType field = fields.get(e.getKey());
            if (field == null) {
                errors.add(FieldError.unknownField(path.child(e.getKey()), fields.keySet()));
            } else {
                walk(e.getValue(), field, path.child(e.getKey()));
            }
        }
    }

    private void quantity(JsonNode n, FieldPath path) {
        if (!expect(n.isTextual() || n.isNumber(), n, path, "a quantity")) {
            return;
        }
        String text = n.asText();
        String beyond = Quantities.outOfBounds(text);
        if (beyond != null) {
            errors.add(new FieldError(path, FieldError.Type.INVALID, Quantities.shown(text), beyond));
            return;
        }
        boolean valid = QUANTITY.matcher(text).matches();
        try {
            Quantities.milliValue(text);
        } catch (IllegalArgumentException e) {
            valid = false;
        }
        if (!valid) {
            errors.add(FieldError.invalid(path, text, "quantities must match the regular expression '" + Quantities.QUANTITY_FORMAT + "'"));
        }
    }

    /** Records a wrong-type error unless {@code ok}; returns {@code ok}. */
    private boolean expect(boolean ok, JsonNode n, FieldPath path, String goType) {
        if (!ok) {
            errors.add(FieldError.wrongType(path, json(n), goType));
        }
        return ok;
    }

    /** A JSON value as Go's decoder names it, with the value: {@code string "three"}, {@code number 1.5}. */
    private static String json(JsonNode n) {
        if (n.isTextual()) {
            String t = n.asText();
            return "string " + GoText.quote(t.length() > 40 ? t.substring(0, 40) + "..." : t);
        }
        if (n.isNumber()) {
            return "number " + n.asText();
        }
        if (n.isBoolean()) {
            return "bool " + n.asText();
        }
        return n.isArray() ? "array" : "object";
    }

    /** The JSON fields of a model class and their types, sorted by name. */
    private static Map<String, JavaType> fields(Class<?> type) {
        return FIELDS.computeIfAbsent(type, t -> {
            Map<String, JavaType> out = new TreeMap<>();
            for (BeanPropertyDefinition p : INTROSPECTION.getDeserializationConfig().introspect(INTROSPECTION.constructType(t)).findProperties()) {
                if (p.hasSetter() || p.hasField() || p.hasConstructorParameter()) {
                    out.put(p.getName(), p.getPrimaryType());
                }
            }
            return out;
        });
    }
}
