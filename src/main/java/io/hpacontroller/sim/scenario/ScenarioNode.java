package io.hpacontroller.sim.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.hpacontroller.core.GoDuration;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * One mapping or value of a scenario file with its path ("workload.containers[0]"), so that every
 * complaint names the place it is about. Mappings are strict: an unknown key is an error (a typo would
 * otherwise silently fall back to a default).
 */
final class ScenarioNode {

    private final JsonNode node;
    private final String path;

    ScenarioNode(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    JsonNode raw() {
        return node;
    }

    String path() {
        return path;
    }

    boolean isMissing() {
        return node == null || node.isMissingNode() || node.isNull();
    }

    ScenarioException error(String problem) {
        return new ScenarioException((path.isEmpty() ? "" : path + ": ") + problem);
    }

    /** A mapping whose keys must all be in {@code known}. */
    ScenarioNode mapping(Set<String> known) throws ScenarioException {
        if (!node.isObject()) {
            throw error("expected a mapping, got " + describe(node));
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!known.contains(key)) {
                throw child(key).error("unknown key (known keys: " + String.join(", ", known.stream().sorted().toList()) + ")");
            }
        }
        return this;
    }

    ScenarioNode child(String key) {
        return new ScenarioNode(node.path(key), path.isEmpty() ? key : path + "." + key);
    }

    List<ScenarioNode> list() throws ScenarioException {
        if (!node.isArray()) {
            throw error("expected a list, got " + describe(node));
        }
        List<ScenarioNode> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            out.add(new ScenarioNode(node.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    String text(String fallback) throws ScenarioException {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isValueNode()) {
            throw error("expected a text value, got " + describe(node));
        }
        return node.asText();
    }

    /** A duration in milliseconds ("15s", "5m", or a number of seconds). */
    long duration(long fallback) throws ScenarioException {
        if (isMissing()) {
            return fallback;
        }
        long millis = node.isValueNode() ? GoDuration.parseMillisOrSeconds(node.asText()) : -1;
        if (millis < 0) {
            throw error("expected a duration such as 15s, 5m, 1h or a number of seconds, got " + describe(node));
        }
        return millis;
    }

    double number(double fallback) throws ScenarioException {
        if (isMissing()) {
            return fallback;
        }
        if (node.isNumber()) {
            return node.asDouble();
        }
        if (node.isTextual()) {
            try {
                double v = Double.parseDouble(node.asText().trim());
                if (!Double.isNaN(v) && !Double.isInfinite(v)) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw error("expected a number, got " + describe(node));
    }

    /** A number in [min, max]. */
    double number(double fallback, double min, double max) throws ScenarioException {
        double v = number(fallback);
        if (v < min || v > max) {
            throw error("must be between " + min + " and " + max + ", got " + v);
        }
        return v;
    }

    int integer(int fallback, int min) throws ScenarioException {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw error("expected a whole number, got " + describe(node));
        }
        int v = node.asInt();
        if (v < min) {
            throw error("must be at least " + min + ", got " + v);
        }
        return v;
    }

    long integerLong(long fallback) throws ScenarioException {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw error("expected a whole number, got " + describe(node));
        }
        return node.asLong();
    }

    boolean bool(boolean fallback) throws ScenarioException {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isBoolean()) {
            throw error("expected true or false, got " + describe(node));
        }
        return node.asBoolean();
    }

    static String describe(JsonNode n) {
        if (n == null || n.isMissingNode()) {
            return "nothing";
        }
        if (n.isObject()) {
            return "a mapping";
        }
        if (n.isArray()) {
            return "a list";
        }
        if (n.isNull()) {
            return "null";
        }
        String t = n.asText();
        return "\"" + (t.length() > 40 ? t.substring(0, 40) + "..." : t) + "\"";
    }
}
