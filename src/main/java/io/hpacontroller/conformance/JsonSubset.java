package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;

/**
 * Compares an expected JSON value with an actual one: every field the expectation names must be there
 * with the same value (fields it does not name are not checked), lists must have the same length and
 * order, and quantities compare by value ("1" equals "1000m").
 */
final class JsonSubset {

    private JsonSubset() {
    }

    /** The first difference as "path: expected X, got Y", or null when the actual value satisfies the expectation. */
    static String diff(String path, JsonNode expected, JsonNode actual) {
        if (expected == null || expected.isNull()) {
            return actual == null || actual.isNull() || actual.isMissingNode() ? null : path + ": expected null, got " + actual;
        }
        if (actual == null || actual.isMissingNode() || actual.isNull()) {
            return path + ": expected " + expected + ", got nothing";
        }
        if (expected.isObject()) {
            if (!actual.isObject()) {
                return path + ": expected an object, got " + actual;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String d = diff(path + "." + e.getKey(), e.getValue(), actual.get(e.getKey()));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (expected.isArray()) {
            if (!actual.isArray() || actual.size() != expected.size()) {
                return path + ": expected " + expected + ", got " + actual;
            }
            for (int i = 0; i < expected.size(); i++) {
                String d = diff(path + "[" + i + "]", expected.get(i), actual.get(i));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (sameScalar(expected, actual)) {
            return null;
        }
        return path + ": expected " + expected + ", got " + actual;
    }

    private static boolean sameScalar(JsonNode expected, JsonNode actual) {
        if (expected.equals(actual)) {
            return true;
        }
        if (expected.isBoolean() || actual.isBoolean()) {
            return false;
        }
        BigDecimal e = number(expected);
        BigDecimal a = number(actual);
        return e != null && a != null && e.compareTo(a) == 0;
    }

    private static BigDecimal number(JsonNode n) {
        if (n.isNumber()) {
            return n.decimalValue();
        }
        if (n.isTextual()) {
            try {
                return new Quantity(n.asText()).getNumericalAmount();
            } catch (RuntimeException e) {
                return null;
            }
        }
        return null;
    }
}
