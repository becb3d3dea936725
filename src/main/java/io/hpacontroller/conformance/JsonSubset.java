package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Compares an expected JSON value with an actual one: every field the expectation names must be there
 * with the same value (fields it does not name are not checked), lists must have the same length and
 * order, and values must have the same JSON type ({@code "5"} is not {@code 5}). Quantities, at the paths
 * the case format says hold one, compare by value ("1" equals "1000m") unless the case asks for them
 * exactly as written.
 */
final class JsonSubset {

    /** Which paths hold a quantity, and whether quantities must match byte for byte. */
    record Quantities(Predicate<String> at, boolean exact) {
        static final Quantities NONE = new Quantities(p -> false, false);
    }

    private JsonSubset() {
    }

    /** The first difference as "path: expected X, got Y", or null when the actual value satisfies the expectation. */
    static String diff(String path, JsonNode expected, JsonNode actual, Quantities quantities) {
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
                String d = diff(path + "." + e.getKey(), e.getValue(), actual.get(e.getKey()), quantities);
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
                String d = diff(path + "[" + i + "]", expected.get(i), actual.get(i), quantities);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (sameScalar(expected, actual, quantities.at().test(path) && !quantities.exact())) {
            return null;
        }
        return path + ": expected " + expected + ", got " + actual;
    }

    private static boolean sameScalar(JsonNode expected, JsonNode actual, boolean byQuantityValue) {
        if (expected.getNodeType() != actual.getNodeType()) {
            return false;
        }
        if (expected.isNumber()) {
            return expected.decimalValue().compareTo(actual.decimalValue()) == 0;
        }
        if (byQuantityValue) {
            BigDecimal e = quantity(expected.asText());
            BigDecimal a = quantity(actual.asText());
            return e != null && a != null && e.compareTo(a) == 0;
        }
        return expected.equals(actual);
    }

    private static BigDecimal quantity(String text) {
        try {
            return new Quantity(text).getNumericalAmount();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
