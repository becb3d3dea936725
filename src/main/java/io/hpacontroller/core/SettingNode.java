package io.hpacontroller.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One value of a user's setting (an annotation's JSON or YAML, a field of a custom resource, a simulator scenario
 * file's key) with its path, so that every complaint names its place: {@code autoscaling.hpa-controller.io/schedules[1].minReplicas:
 * must be at least 1, got -2}. Mappings are strict: an unknown key is an error (a typo must not silently
 * fall back to a default). Every problem is an {@link IllegalArgumentException} carrying that message.
 *
 * <p>Our own reader over Jackson's tree: bounded parsing of hostile annotation text ({@link #read}) and complaints
 * that name the path, which Jackson's own tree reading does not give.
 */
public final class SettingNode {

    /** How complaints name a mapping's entries: settings as the API server does (fields), scenario files as keys. */
    public enum Wording {
        FIELDS, KEYS
    }

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final Pattern WHERE = Pattern.compile("^ in reader, (line \\d+, column \\d+):");

    /** The longest setting text read (an annotation's value; the API server allows 256 KiB for all of them). */
    public static final int MAX_TEXT = 64 * 1024;
    /** The deepest nesting of lists and mappings read; a setting needs two or three levels. */
    public static final int MAX_DEPTH = 16;

    private final JsonNode node;
    private final String path;
    private final Wording wording;

    private SettingNode(JsonNode node, String path, Wording wording) {
        this.node = node;
        this.path = path;
        this.wording = wording;
    }

    /** A value already read (e.g. a custom resource's field), at {@code path}. */
    public static SettingNode of(JsonNode node, String path) {
        return new SettingNode(node, path, Wording.FIELDS);
    }

    /** The top of a file already read (a scenario file): its keys' paths start at the top, complaints name keys. */
    public static SettingNode ofFile(JsonNode root) {
        return new SettingNode(root, "", Wording.KEYS);
    }

    /**
     * Reads JSON or YAML text (an annotation's value) named {@code name}. JSON is read as YAML flow style, so
     * both {@code {"model": "Linear"}} and {@code {model: Linear}} work, duplicate keys are refused, and
     * nothing may follow the value.
     *
     * <p>Bounded work: text longer than {@value #MAX_TEXT} characters or nested deeper than {@value #MAX_DEPTH} is
     * refused before it is read into objects. The YAML reader builds them recursively: 145 KB of nested lists
     * overflowed its stack at every sync.
     *
     * @throws IllegalArgumentException when the text is empty, too long, too deep or not valid YAML
     */
    public static SettingNode read(String text, String name) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(name + ": empty");
        }
        if (text.length() > MAX_TEXT) {
            throw new IllegalArgumentException(name + ": longer than " + MAX_TEXT + " characters (" + text.length() + ")");
        }
        String trimmed = text.strip();
        // fabric8 reads text starting with { or [ as JSON (lenient: a duplicate key wins, trailing text is
        // ignored); a document marker sends it to the YAML reader, which is strict and also takes {a: b}
        String yaml = trimmed.startsWith("{") || trimmed.startsWith("[") ? "--- " + trimmed : trimmed;
        JsonNode node;
        try {
            requireShallow(yaml, name);
            node = SERIALIZATION.unmarshal(yaml, JsonNode.class);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(name + ": not valid JSON or YAML: " + yamlProblem(e));
        }
        if (node == null) {
            throw new IllegalArgumentException(name + ": empty");
        }
        return new SettingNode(node, name, Wording.FIELDS);
    }

    /**
     * Walks the YAML's events (the parser keeps its own stack, unlike the reader that builds objects) and refuses
     * nesting deeper than {@value #MAX_DEPTH}, stopping there. A syntax error is left to the reader, which words it.
     */
    private static void requireShallow(String yaml, String name) {
        int depth = 0;
        try {
            for (Event e : new Parse(LoadSettings.builder().build()).parseString(yaml)) {
                switch (e.getEventId()) {
                    case MappingStart, SequenceStart -> {
                        if (++depth > MAX_DEPTH) {
                            throw new IllegalArgumentException(name + ": nested deeper than " + MAX_DEPTH + " levels");
                        }
                    }
                    case MappingEnd, SequenceEnd -> depth--;
                    default -> {
                    }
                }
            }
        } catch (YamlEngineException syntax) {
            // the reader below reports it, in its words
        }
    }

    public String path() {
        return path;
    }

    /** The value as Jackson's tree holds it. */
    public JsonNode raw() {
        return node;
    }

    public boolean isMissing() {
        return node == null || node.isMissingNode() || node.isNull();
    }

    /** An error about this value: {@code "<path>: <problem>"}. */
    public IllegalArgumentException error(String problem) {
        return new IllegalArgumentException((path.isEmpty() ? "" : path + ": ") + problem);
    }

    /**
     * An error about this value from a check's message, which may name the field itself ("duration must be
     * ..."): the name is then left to the path. A message that already starts with this path is kept as is.
     */
    public IllegalArgumentException errorFrom(String message) {
        if (message.startsWith(path + ":")) {
            return new IllegalArgumentException(message);
        }
        String field = path.substring(path.lastIndexOf('.') + 1);
        return error(message.startsWith(field + " ") ? message.substring(field.length() + 1) : message);
    }

    /** This value as a mapping whose keys must all be in {@code known}. */
    public SettingNode mapping(Set<String> known) {
        if (isMissing() || !node.isObject()) {
            throw error("expected a mapping" + (wording == Wording.FIELDS ? " with the keys " + sorted(known) : "") + ", got " + describe());
        }
        String entry = wording == Wording.FIELDS ? "field" : "key";
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!known.contains(key)) {
                throw child(key).error("unknown " + entry + " (known " + entry + "s: " + sorted(known) + ")");
            }
        }
        return this;
    }

    public SettingNode child(String key) {
        return new SettingNode(node == null ? null : node.path(key), path.isEmpty() ? key : path + "." + key, wording);
    }

    /** This value as a list, each element with its index in the path. */
    public List<SettingNode> list() {
        if (isMissing() || !node.isArray()) {
            throw error("expected a list, got " + describe());
        }
        List<SettingNode> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            out.add(new SettingNode(node.get(i), path + "[" + i + "]", wording));
        }
        return out;
    }

    /** A required text value. */
    public String text(String whatItIs) {
        requirePresent(whatItIs);
        if (!node.isTextual()) {
            throw error("expected " + whatItIs + ", got " + describe());
        }
        return node.asText();
    }

    /** A required whole number. */
    public int integer(String whatItIs) {
        requirePresent(whatItIs);
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw error("expected " + whatItIs + ", got " + describe());
        }
        return node.asInt();
    }

    /** A required duration: Go's form plus days and weeks ("90s", "10h", "7d"). */
    public Duration duration(String example) {
        String what = "a duration such as " + example;
        requirePresent(what);
        if (!node.isTextual()) {
            throw error("expected " + what + ", got " + describe());
        }
        try {
            return GoDuration.parseWithDays(node.asText());
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** An optional text value (any scalar), {@code fallback} when missing. */
    public String textOr(String fallback) {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isValueNode()) {
            throw error("expected a text value, got " + describe());
        }
        return node.asText();
    }

    /** An optional duration in milliseconds ("15s", "5m", or a number of seconds), {@code fallback} when missing. */
    public long millisOr(long fallback) {
        if (isMissing()) {
            return fallback;
        }
        long millis = node.isValueNode() ? GoDuration.parseMillisOrSeconds(node.asText()) : -1;
        if (millis < 0) {
            throw error("expected a duration such as 15s, 5m, 1h or a number of seconds, got " + describe());
        }
        return millis;
    }

    /** An optional finite number (or text holding one), {@code fallback} when missing. */
    public double numberOr(double fallback) {
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
        throw error("expected a number, got " + describe());
    }

    /** {@link #numberOr(double)} in [min, max]. */
    public double numberOr(double fallback, double min, double max) {
        double v = numberOr(fallback);
        if (v < min || v > max) {
            throw error("must be between " + min + " and " + max + ", got " + v);
        }
        return v;
    }

    /** An optional whole number of at least {@code min}, {@code fallback} when missing. */
    public int integerOr(int fallback, int min) {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw error("expected a whole number, got " + describe());
        }
        int v = node.asInt();
        if (v < min) {
            throw error("must be at least " + min + ", got " + v);
        }
        return v;
    }

    /** An optional whole number, {@code fallback} when missing. */
    public long longOr(long fallback) {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw error("expected a whole number, got " + describe());
        }
        return node.asLong();
    }

    /** An optional true or false, {@code fallback} when missing. */
    public boolean boolOr(boolean fallback) {
        if (isMissing()) {
            return fallback;
        }
        if (!node.isBoolean()) {
            throw error("expected true or false, got " + describe());
        }
        return node.asBoolean();
    }

    private void requirePresent(String whatItIs) {
        if (isMissing()) {
            throw error("required (" + whatItIs + ")");
        }
    }

    /** What the value is, for a complaint: "nothing", "a mapping", "a list", or the value (quoted: text; a file's, any). */
    public String describe() {
        if (node == null || node.isMissingNode() || node.isNull() && wording == Wording.FIELDS) {
            return "nothing";
        }
        if (node.isObject()) {
            return "a mapping";
        }
        if (node.isArray()) {
            return "a list";
        }
        if (node.isNull()) {
            return "null";
        }
        String t = node.asText();
        t = t.length() > 40 ? t.substring(0, 40) + "..." : t;
        return node.isTextual() || wording == Wording.KEYS ? "\"" + t + "\"" : t;
    }

    private static String sorted(Set<String> keys) {
        return String.join(", ", keys.stream().sorted().toList());
    }

    /** The gist of a YAML reader's multi-line message, with where it happened. */
    private static String yamlProblem(RuntimeException e) {
        if (e instanceof ClassCastException) {
            return "more than one YAML document";  // fabric8 then expects a list of Kubernetes objects
        }
        String message = e.getMessage();
        if (message == null) {
            return e.getClass().getSimpleName();
        }
        List<String> words = new ArrayList<>();
        String where = null;
        for (String line : message.split("\n")) {
            Matcher m = WHERE.matcher(line);
            if (m.find()) {
                where = m.group(1);
            } else if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
                words.add(line.strip());
            }
        }
        String text = words.isEmpty() ? message.strip().split("\n", 2)[0] : String.join(": ", words);
        if (text.length() > 200) {
            text = text.substring(0, 200) + "...";
        }
        if (text.contains("alias")) {
            text += " (quote a value that starts with *, e.g. cron: \"*/5 * * * *\")";
        }
        return where == null ? text : text + " (at " + where + ")";
    }
}
